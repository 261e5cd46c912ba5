// Memory findings of one step (issue 15): memory-fragmentation (the caching
// allocator holds memory no tensor uses, at every moment of every captured
// step) and memory-peak (what the allocated peak is made of).
#pragma once

#include <vector>

#include "analysis/common/finding.h"
#include "analysis/common/findings_catalog.h"
#include "analysis/step/kernel_distribution.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

std::vector<Finding> MemoryFindings(const StepDistribution& step, const model::RankProfile& profile,
                                    const FindingThresholds& thresholds);

}  // namespace trainscope::analysis
