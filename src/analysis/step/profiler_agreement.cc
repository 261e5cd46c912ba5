#include "analysis/step/profiler_agreement.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace trainscope::analysis {
namespace {

// a - b, clamped instead of overflowing (hostile step_trace values).
int64_t Delta(int64_t a, int64_t b) {
  int64_t d = 0;
  if (__builtin_sub_overflow(a, b, &d)) return a > b ? INT64_MAX : -INT64_MAX;
  return d == INT64_MIN ? -INT64_MAX : d;
}

}  // namespace

std::optional<ProfilerAgreement> CompareWithProfiler(const TimeBudget& budget,
                                                     const StepTraceSummary& profiler) {
  ProfilerAgreement a;
  a.profiler_step_ns = profiler.overlap_step_ns();
  if (a.profiler_step_ns <= 0) return std::nullopt;
  a.computation_delta_ns = Delta(budget.computation_ns, profiler.computing_ns);
  a.exposed_communication_delta_ns =
      Delta(budget.exposed_communication_ns, profiler.communication_not_overlapped_ns);
  a.idle_delta_ns = Delta(budget.idle_ns, profiler.free_ns);
  const int64_t worst =
      std::max({std::llabs(a.computation_delta_ns), std::llabs(a.exposed_communication_delta_ns),
                std::llabs(a.idle_delta_ns)});
  a.worst_share = static_cast<double>(worst) / static_cast<double>(a.profiler_step_ns);
  a.agrees = a.worst_share <= kProfilerAgreementShare;
  return a;
}

std::optional<ProfilerAgreement> CompareWithProfiler(const StepDistribution& step) {
  if (!step.breakdown || !step.step_trace) return std::nullopt;
  // A budget taken from step_trace_time.csv agrees with itself.
  if (step.breakdown->source == kProfilerBudgetSource) return std::nullopt;
  return CompareWithProfiler(step.breakdown->budget, *step.step_trace);
}

}  // namespace trainscope::analysis
