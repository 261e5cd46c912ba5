// The time budget of one step over the rank's one DeviceEvents table
// (BudgetOfRows, interval unions, see breakdown.h). Only the labels depend on
// where the rows came from: a trace's step windows or kernel_details.csv's
// Step Id.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "analysis/step/breakdown.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

// The source of a budget taken from step_trace_time.csv itself, for a step
// without device events.
inline constexpr std::string_view kProfilerBudgetSource = "step_trace_time.csv";

inline constexpr std::string_view kSpanIteration = "iteration";
inline constexpr std::string_view kSpanDeviceBusy = "device busy span";
inline constexpr std::string_view kSpanProfilerStep = "profiler step";

struct StepBudget {
  std::string source;  // "trace", "kernel_details.csv", kProfilerBudgetSource or the trace file
  std::string scope;
  TimeBudget budget;
  // The source this budget replaced because that one disagreed with
  // step_trace_time.csv and this one agrees ("" when nothing was replaced).
  std::string replaced;
  // What budget.total_ns measures: kSpanIteration (a GPU trace's iteration,
  // model/iteration.h), kSpanDeviceBusy (first device activity to last end)
  // or kSpanProfilerStep (step_trace_time.csv's own step).
  std::string span = std::string(kSpanDeviceBusy);
  // An iteration's host step (ProfilerStep#N's duration) and its device
  // busy span, beside the iteration; nullopt for the other spans.
  std::optional<int64_t> host_step_ns;
  std::optional<int64_t> device_busy_span_ns;
};

// |step| == kNoStep: the whole capture. Without device events in the step,
// the profiler's own accounting (step_trace_time.csv) when it has the step;
// nullopt when neither exists.
std::optional<StepBudget> ComputeStepBudget(const model::RankProfile& profile, int32_t step);

// step_trace_time.csv's accounting of |step| (CANN's Overlap Analysis:
// Computing, Communication(Not Overlapped), Free) as a budget whose scope is
// |scope|; nullopt when the file lacks the step or its step is empty.
std::optional<StepBudget> ProfilerStepBudget(const model::RankProfile& profile, int32_t step,
                                             std::string scope);

// The budget of |step| from the trace's own device times, when they were
// joined onto kernel_details.csv rows (RankProfile::trace_times); nullopt
// when there are none for the step.
std::optional<StepBudget> TraceBudgetBeside(const model::RankProfile& profile, int32_t step);

}  // namespace trainscope::analysis
