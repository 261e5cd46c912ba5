#include "analysis/step/step_budget.h"

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <utility>
#include <vector>

#include "analysis/common/breakdown_intervals.h"
#include "model/iteration.h"

namespace trainscope::analysis {

// A rank with no device events in the step (kernel_details.csv missing, as
// in the Qwen sample's ranks 1 and 3) still has CANN's own accounting of
// it: the budget is then step_trace_time.csv's Overlap Analysis, so the
// rank keeps its exposed-communication and free-time findings instead of
// "none above the thresholds". The same budget replaces a step's device
// timeline that is set aside (kernel_distribution.h).
std::optional<StepBudget> ProfilerStepBudget(const model::RankProfile& profile, int32_t step,
                                             std::string scope) {
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
  StepBudget budget{std::string(kProfilerBudgetSource), std::move(scope), b, ""};
  budget.span = kSpanProfilerStep;
  return budget;
}

namespace {

// The rows that can have time in |step|'s iteration window: its own and its
// neighbours' in the host's step order (a kernel of the previous step that
// runs past the window's start, one of the next that starts before its end).
std::vector<uint32_t> IterationRows(const model::RankProfile& profile, int32_t step) {
  const std::vector<model::Step>& steps = profile.timeline.steps;
  const model::DeviceEvents& events = profile.device_events;
  std::vector<uint32_t> rows;
  const std::optional<size_t> index = model::HostStepIndex(steps, step);
  if (!index) return rows;
  const size_t k = *index;
  const size_t first = k > 0 ? k - 1 : k;
  const size_t last = std::min(k + 1, steps.size() - 1);
  for (size_t n = first; n <= last; ++n) {
    const model::RowSet own = events.RowsOf(steps[n].number);
    rows.insert(rows.end(), own.begin(), own.end());
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

// A GPU trace's step as the host lives it (model/iteration.h).
std::optional<StepBudget> IterationBudget(const model::RankProfile& profile, int32_t step) {
  const std::optional<model::Iteration> iteration = model::IterationOf(profile, step);
  if (!iteration) return std::nullopt;
  const model::DeviceEvents& events = profile.device_events;
  const std::optional<model::StepExtent> own = events.ExtentOf(step);
  if (!own) return std::nullopt;
  const std::vector<uint32_t> rows = IterationRows(profile, step);
  TimeBudget budget = BudgetInWindow(events.start_ns, events.duration_ns, events.kind, rows,
                                     iteration->start_ns, iteration->end_ns);
  if (budget.activities == 0) return std::nullopt;
  StepBudget out{"trace",
                 iteration->ends_at_next
                     ? "iteration: from this step's start to the next step's start on the "
                       "device clock (ProfilerStep windows); all device activities in it"
                     : "iteration: from this step's start to the end of its host step or its "
                       "last device activity (no next step follows); all device activities in it",
                 budget, ""};
  out.span = kSpanIteration;
  out.host_step_ns = iteration->host_span_ns();
  out.device_busy_span_ns = own->span_ns();
  return out;
}

}  // namespace

std::optional<StepBudget> ComputeStepBudget(const model::RankProfile& profile, int32_t step) {
  const model::DeviceEvents& events = profile.device_events;
  const TimeBudget budget =
      BudgetOfRows(events.start_ns, events.duration_ns, events.kind, events.RowsOf(step));
  if (budget.activities == 0) {
    return ProfilerStepBudget(profile, step,
                              "CANN's Overlap Analysis of the step (no device events for this "
                              "rank): Computing, Communication(Not Overlapped) and Free");
  }
  if (auto iteration = IterationBudget(profile, step)) return iteration;
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
