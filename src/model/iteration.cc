#include "model/iteration.h"

#include <algorithm>
#include <vector>

namespace trainscope::model {
namespace {

// When the device could start the iteration of steps[k] (see IterationOf).
int64_t IterationStart(const RankProfile& profile, size_t k, int64_t capture_start) {
  const std::vector<Step>& steps = profile.timeline.steps;
  const DeviceEvents& events = profile.device_events;
  int64_t start = steps[k].start_ns;
  if (k > 0) {
    if (const auto previous = events.ExtentOf(steps[k - 1].number))
      start = std::max(start, previous->last_end_ns);
  }
  if (const auto own = events.ExtentOf(steps[k].number))
    start = std::min(start, own->first_start_ns);
  return std::max(start, capture_start);
}

}  // namespace

// Steps are sorted by start; their numbers ascend with it in every trace
// seen, else a scan finds the step.
std::optional<size_t> HostStepIndex(const std::vector<Step>& steps, int32_t step) {
  const auto it = std::lower_bound(steps.begin(), steps.end(), step,
                                   [](const Step& s, int32_t n) { return s.number < n; });
  if (it != steps.end() && it->number == step) return static_cast<size_t>(it - steps.begin());
  for (size_t k = 0; k < steps.size(); ++k) {
    if (steps[k].number == step) return k;
  }
  return std::nullopt;
}

bool HasIterations(const RankProfile& profile) {
  if (profile.device_events_source != DeviceEventsSource::kTrace) return false;
  if (profile.timeline.step_source == StepSource::kNone || profile.timeline.steps.empty())
    return false;
  const bool ascend_export = !profile.profiler_output.empty() ||
                             !profile.info.cann_version.empty() ||
                             !profile.info.torch_npu_version.empty() || !profile.step_trace.empty();
  return !ascend_export && !profile.timeline.source.ends_with("trace_view.json");
}

std::optional<Iteration> IterationOf(const RankProfile& profile, int32_t step) {
  if (step == kNoStep || !HasIterations(profile)) return std::nullopt;
  const std::vector<Step>& steps = profile.timeline.steps;
  const std::optional<size_t> index = HostStepIndex(steps, step);
  if (!index) return std::nullopt;
  const size_t k = *index;
  const DeviceEvents& events = profile.device_events;
  const std::optional<StepExtent> capture = events.ExtentOf(kNoStep);
  const int64_t capture_start = capture ? capture->first_start_ns : steps[k].start_ns;

  Iteration it;
  it.step = step;
  it.host_start_ns = steps[k].start_ns;
  it.host_end_ns = steps[k].end_ns;
  it.start_ns = IterationStart(profile, k, capture_start);
  const bool next_follows =
      k + 1 < steps.size() && steps[k + 1].start_ns - steps[k].end_ns <= kIterationRunGapNs;
  if (next_follows) {
    it.end_ns = IterationStart(profile, k + 1, capture_start);
    it.ends_at_next = true;
  } else {
    it.end_ns = steps[k].end_ns;
    if (const auto own = events.ExtentOf(step)) it.end_ns = std::max(it.end_ns, own->last_end_ns);
  }
  if (it.end_ns < it.start_ns) it.end_ns = it.start_ns;
  return it;
}

std::optional<IterationCheck> CheckIterations(const RankProfile& profile) {
  if (!HasIterations(profile)) return std::nullopt;
  std::vector<int64_t> iterations;
  std::vector<int64_t> host_steps;
  for (const Step& step : profile.timeline.steps) {
    const std::optional<Iteration> it = IterationOf(profile, step.number);
    if (!it || !it->ends_at_next || !profile.device_events.ExtentOf(step.number)) continue;
    iterations.push_back(it->span_ns());
    host_steps.push_back(it->host_span_ns());
  }
  if (iterations.empty()) return std::nullopt;
  auto median = [](std::vector<int64_t>& values) {
    const auto mid = values.begin() + static_cast<std::ptrdiff_t>((values.size() - 1) / 2);
    std::nth_element(values.begin(), mid, values.end());
    return *mid;
  };
  IterationCheck check;
  check.iterations = static_cast<int64_t>(iterations.size());
  check.median_iteration_ns = median(iterations);
  check.median_host_step_ns = median(host_steps);
  return check;
}

}  // namespace trainscope::model
