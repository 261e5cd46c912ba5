// Memory findings. Of one step of one rank: memory-fragmentation
// (the caching allocator holds memory no tensor uses, at every moment of
// every captured step), memory-peak (one operator holds much of the
// allocated peak: what recompute, offload and fused kernels would save) and
// oom-risk (little headroom to the device's capacity). Of the job:
// memory-imbalance (the ranks' allocated peaks far apart).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "analysis/common/finding.h"
#include "analysis/common/findings_catalog.h"
#include "analysis/step/kernel_distribution.h"
#include "analysis/step/memory_usage.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

// The lowest reserved-minus-allocated gap share of each captured step of a
// rank that has allocator samples (MinGapShare of its MemoryUsage):
// memory-fragmentation asks whether every other step holds the gap too.
// Made once per rank (each step's samples read once), not once per step.
using StepGapShares = std::map<int32_t, double>;
StepGapShares GapSharesOf(const model::RankProfile& profile, const MemorySamples& samples);
// The same from every step's memory already measured (step -> its usage).
StepGapShares GapSharesOf(const std::map<int32_t, std::optional<MemoryUsage>>& usage);

// |gaps|: the rank's GapSharesOf; nullptr makes them for this call.
std::vector<Finding> MemoryFindings(const StepDistribution& step, const model::RankProfile& profile,
                                    const FindingThresholds& thresholds,
                                    const StepGapShares* gaps = nullptr);

// One rank's allocated peak in the job's step (memory-imbalance).
struct RankMemoryPeak {
  int32_t rank = -1;
  int64_t peak_allocated_bytes = 0;
};

// memory-imbalance: the largest rank's peak minus the smallest at or above
// memory_imbalance_share of the median rank's; needs two ranks or more.
void AddMemoryImbalance(std::vector<RankMemoryPeak> peaks, const FindingThresholds& thresholds,
                        std::vector<Finding>* out);

}  // namespace trainscope::analysis
