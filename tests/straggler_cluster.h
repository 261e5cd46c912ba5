// A cluster analysis of collective timings written by a test: one row per
// rank, the straggler methods run with the built-in thresholds.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/cluster/cluster.h"
#include "analysis/cluster/straggler.h"
#include "analysis/common/findings_catalog.h"

namespace trainscope::testing {

// |job|'s ranks, each with a device step and |collectives| collectives in
// it; the step |step_ns| long (the methods' thresholds are shares of it).
inline analysis::ClusterAnalysis StragglerCluster(const std::vector<analysis::RankComm>& job,
                                                  int64_t step_ns, int64_t collectives) {
  analysis::ClusterAnalysis cluster;
  cluster.present = true;
  cluster.ranks = static_cast<int32_t>(job.size());
  cluster.mean_step_time_ns = static_cast<double>(step_ns);
  for (const analysis::RankComm& rank : job) {
    analysis::RankClusterStats row;
    row.rank = rank.rank;
    row.has_device_step = true;
    row.collectives = collectives;
    cluster.per_rank.push_back(row);
  }
  analysis::DetectStragglers(
      job, analysis::StragglerOptionsOf(analysis::FindingCatalog::Builtin().thresholds()),
      &cluster);
  return cluster;
}

}  // namespace trainscope::testing
