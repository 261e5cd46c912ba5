// The time budget of one step over the rank's one DeviceEvents table
// (BudgetOfRows, interval unions, see breakdown.h). Only the labels depend on
// where the rows came from: a trace's step windows or kernel_details.csv's
// Step Id.
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
