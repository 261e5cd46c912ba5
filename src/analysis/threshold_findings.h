// The threshold rules of methodology §3 on one rank's selected step:
// exposed communication (<=10% normal, >20% examine), device free time
// (>3%: host-bound dispatch), a dominant operator (>30% of kernel time) and
// compute- vs memory-bound operators from the AI Core pipe ratios.
#pragma once

#include <vector>

#include "analysis/finding.h"
#include "analysis/rank_analysis.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

// Findings of |rank| (ranks = {rank.rank}); merged across ranks by the caller.
std::vector<Finding> ThresholdFindings(const RankAnalysis& rank, const model::RankProfile& profile);

}  // namespace trainscope::analysis
