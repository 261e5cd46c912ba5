#include "analysis/step/step_budget.h"

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <vector>

#include "analysis/common/breakdown_intervals.h"

namespace trainscope::analysis {
namespace {

// A rank with no device events in the step (kernel_details.csv missing, as
// in the Qwen sample's ranks 1 and 3) still has CANN's own accounting of
// it: the budget is then step_trace_time.csv's Overlap Analysis, so the
// rank keeps its exposed-communication and free-time findings (issue 12
// item 11) instead of "none above the thresholds".
std::optional<StepBudget> ProfilerBudget(const model::RankProfile& profile, int32_t step) {
  const model::StepTraceRow* row = profile.StepTraceOf(step);
  if (row == nullptr) return std::nullopt;
  TimeBudget b;
  b.total_ns = row->overlap_step_ns();
  if (b.total_ns <= 0) return std::nullopt;
  b.computation_ns = row->computing_ns;
  b.communication_ns = row->communication_ns;
  b.exposed_communication_ns = row->communication_not_overlapped_ns;
  b.busy_ns = b.total_ns - row->free_ns;
  b.idle_ns = row->free_ns;
  return StepBudget{std::string(kProfilerBudgetSource),
                    "CANN's Overlap Analysis of the step (no device events for this rank): "
                    "Computing, Communication(Not Overlapped) and Free",
                    b, ""};
}

}  // namespace

std::optional<StepBudget> ComputeStepBudget(const model::RankProfile& profile, int32_t step) {
  const model::DeviceEvents& events = profile.device_events;
  const TimeBudget budget =
      BudgetOfRows(events.start_ns, events.duration_ns, events.kind, events.RowsOf(step));
  if (budget.activities == 0) return ProfilerBudget(profile, step);
  if (profile.device_events_source == model::DeviceEventsSource::kTrace) {
    return StepBudget{
        "trace",
        step == model::kNoStep
            ? "whole trace; all device activities"
            : "ProfilerStep window (activity in step = launched by a host op in the step "
              "window, else starts in it); all device activities",
        budget, ""};
  }
  // The .db export's rows are kernel_details.csv's, with their step from
  // the STEP_TIME ranges instead of a Step Id column.
  if (profile.device_events_from.ends_with(".db")) {
    return StepBudget{
        std::filesystem::path(profile.device_events_from).filename().string(),
        "kernels and communication ops starting in the step's STEP_TIME range; window = first "
        "start to last end",
        budget, ""};
  }
  return StepBudget{
      "kernel_details.csv",
      "kernels whose Step Id is the step; window = first kernel start to last kernel end", budget,
      ""};
}

std::optional<StepBudget> TraceBudgetBeside(const model::RankProfile& profile, int32_t step) {
  const model::DeviceTimesBeside& times = profile.trace_times;
  const auto it = std::lower_bound(times.steps.begin(), times.steps.end(), step);
  if (it == times.steps.end() || *it != step) return std::nullopt;
  const auto k = static_cast<size_t>(it - times.steps.begin());
  std::vector<uint32_t> rows(times.step_begin[k + 1] - times.step_begin[k]);
  std::iota(rows.begin(), rows.end(), times.step_begin[k]);
  const TimeBudget budget = BudgetOfRows(times.start_ns, times.duration_ns, times.kind, rows);
  if (budget.activities == 0) return std::nullopt;
  return StepBudget{std::filesystem::path(times.from).filename().string(),
                    "the trace's own device tasks in the step window (compute task types, HCCL "
                    "ops); all of them",
                    budget, ""};
}

}  // namespace trainscope::analysis
