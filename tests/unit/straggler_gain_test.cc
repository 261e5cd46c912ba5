// A straggler's gain is the step time the other ranks lose to it, counted
// once: a rank whose computation is 10% longer than the others' makes each
// of them wait that long once per step, whatever the number of collectives
// after it (lateness x collectives made a 7.7% saving a 20% gain).
// Cluster statistics written for this test (not by synth or a detector).
#include <gtest/gtest.h>

#include <vector>

#include "analysis/cluster/cluster.h"
#include "analysis/findings/cluster_findings.h"
#include "finding_lookup.h"
#include "time_units.h"

namespace trainscope::analysis {
namespace {

using testing::FindingWithId;
using testing::kMs;

// Four ranks of a 200 ms step with 12 collectives each; rank 3 computes
// 15.4 ms (7.7% of the step) longer and so arrives 15.4 ms late at each.
ClusterAnalysis SlowRankJob() {
  ClusterAnalysis cluster;
  cluster.present = true;
  cluster.ranks = 4;
  cluster.ranks_with_step = 4;
  cluster.mean_step_time_ns = 200.0 * kMs;
  cluster.straggler_ranks = {3};
  for (int32_t r = 0; r < 4; ++r) {
    RankClusterStats stats;
    stats.rank = r;
    stats.has_device_step = true;
    stats.collectives = 12;
    if (r == 3) {
      stats.mean_lateness_ns = 15.4 * kMs;
      stats.last_arrivals = 12;
      stats.late_start_flags = 3;
      stats.excess_computation_ns = static_cast<int64_t>(15.4 * kMs);
    }
    cluster.per_rank.push_back(stats);
  }
  cluster.by_compute.ranks = {3};
  return cluster;
}

TEST(StragglerGain, SlowComputeCountsItsDelayOncePerStep) {
  std::vector<Finding> findings;
  AddClusterFindings(SlowRankJob(), &findings);
  const Finding* f = FindingWithId(findings, "straggler-rank");
  ASSERT_NE(f, nullptr);
  // 15.4 ms of a 200 ms step, once: 7.7%, not 12 x 7.7% capped at 20%.
  EXPECT_NEAR(f->estimated_gain_pct, 7.7, 0.01);
  EXPECT_FALSE(f->gain_withheld);
}

TEST(StragglerGain, EvidenceCarriesExcessComputationAndCountsNotSums) {
  ClusterAnalysis cluster = SlowRankJob();
  // Two stragglers flagged in 3 of 3 steps each: the count stays 3.
  cluster.straggler_ranks = {2, 3};
  cluster.per_rank[2].late_start_flags = 3;
  cluster.per_rank[2].mean_lateness_ns = 1.0 * kMs;
  std::vector<Finding> findings;
  AddClusterFindings(cluster, &findings);
  const Finding* f = FindingWithId(findings, "straggler-rank");
  ASSERT_NE(f, nullptr);
  auto value = [&](const std::string& key) {
    for (const auto& [k, v] : f->evidence_values) {
      if (k == key) return v;
    }
    ADD_FAILURE() << "no evidence value " << key;
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(value("late_starts"), 3);
  EXPECT_NEAR(value("excess_computation_ms"), 15.4, 1e-9);
  EXPECT_NEAR(value("excess_computation_pct"), 7.7, 1e-9);
  bool names_compute_rank = false;
  for (const auto& [key, label] : f->text_labels) {
    if (key == "compute_ranks") names_compute_rank = label == "3";
  }
  EXPECT_TRUE(names_compute_rank);
}

}  // namespace
}  // namespace trainscope::analysis
