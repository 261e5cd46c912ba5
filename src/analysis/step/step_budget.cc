#include "analysis/step/step_budget.h"

#include "analysis/common/breakdown_intervals.h"

namespace trainscope::analysis {

std::optional<StepBudget> ComputeStepBudget(const model::RankProfile& profile, int32_t step) {
  const model::DeviceEvents& events = profile.device_events;
  const TimeBudget budget =
      BudgetOfRows(events.start_ns, events.duration_ns, events.kind, events.RowsOf(step));
  if (budget.activities == 0) return std::nullopt;
  if (profile.device_events_source == model::DeviceEventsSource::kTrace) {
    return StepBudget{
        "trace",
        step == model::kNoStep
            ? "whole trace; all device activities"
            : "ProfilerStep window (activity in step = launched by a host op in the step "
              "window, else starts in it); all device activities",
        budget};
  }
  return StepBudget{
      "kernel_details.csv",
      "kernels whose Step Id is the step; window = first kernel start to last kernel end", budget};
}

}  // namespace trainscope::analysis
