// Cross-rank analysis of a job: communication, stragglers, skew, slow links.
// (Interface stub; implemented by the Clusters work.)
#pragma once

#include <cstdint>
#include <vector>

namespace trainscope::analysis {

struct ClusterAnalysis {
  bool present = false;  // false for a single rank
  int32_t ranks = 0;
};

}  // namespace trainscope::analysis
