#include "analysis/step/step_budget.h"

#include <numeric>
#include <vector>

#include "analysis/common/breakdown_intervals.h"

namespace trainscope::analysis {
namespace {

std::optional<StepBudget> FromTrace(const model::RankProfile& profile, int32_t step) {
  const model::Timeline& timeline = profile.timeline;
  const auto& activities = timeline.activities;
  std::vector<uint32_t> members;
  if (step == model::kNoStep) {
    members.resize(activities.size());
    std::iota(members.begin(), members.end(), 0u);
  } else if (auto rows = timeline.activity_rows_by_step.find(step);
             rows != timeline.activity_rows_by_step.end()) {
    members = rows->second;
  }
  TimeBudget budget = BudgetOf(timeline, activities.kind, members);
  if (budget.activities == 0) return std::nullopt;
  return StepBudget{
      "trace",
      step == model::kNoStep
          ? "whole trace; all device activities"
          : "ProfilerStep window (activity in step = launched by a host op in the step "
            "window, else starts in it); all device activities",
      budget};
}

std::optional<StepBudget> FromKernels(const model::RankProfile& profile, int32_t step) {
  const auto& kernels = profile.kernels;
  const TimeBudget b =
      BudgetOfRows(kernels.start_ns, kernels.duration_ns, kernels.kind, kernels.RowsOf(step));
  if (b.activities == 0) return std::nullopt;
  return StepBudget{
      "kernel_details.csv",
      "kernels whose Step Id is the step; window = first kernel start to last kernel end", b};
}

}  // namespace

std::optional<StepBudget> ComputeStepBudget(const model::RankProfile& profile, int32_t step) {
  if (profile.timeline.present && profile.timeline.activities.size() > 0) {
    if (auto budget = FromTrace(profile, step)) return budget;
  }
  return FromKernels(profile, step);
}

}  // namespace trainscope::analysis
