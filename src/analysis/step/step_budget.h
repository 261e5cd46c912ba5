// The time budget of one step, whichever data the profile has: device
// activities of a trace (Kineto, trace_view.json) when present, else the
// kernels of kernel_details.csv. Both go through the one BudgetOfRows
// (interval unions, see breakdown.h); only the table and the labels differ.
#pragma once

#include <optional>
#include <string>

#include "analysis/step/breakdown.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

struct StepBudget {
  std::string source;  // "trace" or "kernel_details.csv"
  std::string scope;
  TimeBudget budget;
};

// |step| == kNoStep: the whole capture. nullopt when the step has no device
// activity at all.
std::optional<StepBudget> ComputeStepBudget(const model::RankProfile& profile, int32_t step);

}  // namespace trainscope::analysis
