// Findings of the cluster analysis: straggler-rank, step-start-skew,
// pseudo-overlap, slow-link, fragmented-communication.
#pragma once

#include <vector>

#include "analysis/cluster.h"
#include "analysis/finding.h"

namespace trainscope::analysis {

struct ClusterFindingThresholds {
  // step-start-skew: the mean step-start barrier wait, % of the mean step.
  double skew_wait_pct = 4.0;
  // The spread CPU binding leaves (methodology: 104.5 -> 70.2 ms) and the
  // smallest gain over it worth a finding.
  double residual_skew_us = 70'200;
  double skew_min_gain_pct = 1.0;
  // pseudo-overlap: compute idle behind all-gathers, % of the mean step. A
  // rank counts only when most of its all-gathers make compute wait: with
  // prefetch the first unshard of each forward (nothing to hide behind) and
  // waits on a late peer still stall compute now and then, and that is not
  // the separate-stream pattern the remedy removes.
  double pseudo_overlap_pct = 2.0;
  int64_t pseudo_overlap_min_count = 2;
  double pseudo_overlap_min_share = 0.5;  // waits / all-gathers of the rank
  // fragmented-communication: small slices per rank and step, and their share of comm time.
  double fragmented_min_slices = 16;
  double fragmented_min_share = 0.5;
};

void AddClusterFindings(const ClusterAnalysis& cluster, std::vector<Finding>* findings,
                        const ClusterFindingThresholds& t = {});

}  // namespace trainscope::analysis
