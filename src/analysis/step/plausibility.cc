#include "analysis/step/plausibility.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <utility>
#include <vector>

#include "core/numbers.h"

namespace trainscope::analysis {
namespace {

StepPlausibility Measure(const model::RankProfile& profile, int32_t step) {
  const model::DeviceEvents& events = profile.device_events;
  StepPlausibility p;
  p.step = step;
  const model::StepTraceRow* profiler =
      step == model::kNoStep ? nullptr : profile.StepTraceOf(step);
  p.profiler_step_ns = profiler != nullptr ? profiler->overlap_step_ns() : 0;
  // Rows are in start order (SortByStart), so the union and the same-start
  // check are one pass each.
  std::map<std::pair<int32_t, int32_t>, int64_t> last_start;  // (device, stream) -> start
  int64_t union_start = 0, union_end = 0;
  bool open = false;
  for (uint32_t i : events.RowsOf(step)) {
    if (p.profiler_step_ns > 0 && events.duration_ns[i] > p.profiler_step_ns) ++p.longer_than_step;
    if (events.kind[i] != model::ActivityKind::kCompute) continue;
    ++p.compute_kernels;
    const int64_t start = events.start_ns[i];
    const int64_t end = events.end_ns(i);
    AddSaturating(p.kernel_time_ns, events.duration_ns[i]);
    auto [it, inserted] = last_start.try_emplace({events.device[i], events.stream[i]}, start);
    if (!inserted) {
      if (it->second == start) ++p.same_start_kernels;
      it->second = start;
    }
    if (!open || start > union_end) {
      if (open) AddSaturating(p.covered_ns, union_end - union_start);
      union_start = start;
      union_end = end;
      open = true;
    } else {
      union_end = std::max(union_end, end);
    }
  }
  if (open) AddSaturating(p.covered_ns, union_end - union_start);
  p.streams = static_cast<int64_t>(last_start.size());
  p.concurrency = p.covered_ns > 0
                      ? static_cast<double>(p.kernel_time_ns) / static_cast<double>(p.covered_ns)
                      : 0;
  const bool too_concurrent = p.concurrency > static_cast<double>(p.streams) + kConcurrencySlack;
  const bool collide =
      p.compute_kernels >= 10 && static_cast<double>(p.same_start_kernels) >
                                     kSameStartShare * static_cast<double>(p.compute_kernels);
  p.plausible = !too_concurrent && !collide && p.longer_than_step == 0;
  return p;
}

// How far past possible: concurrency over its bound first, collisions next.
bool Worse(const StepPlausibility& a, const StepPlausibility& b) {
  const double over_a = a.concurrency - static_cast<double>(a.streams);
  const double over_b = b.concurrency - static_cast<double>(b.streams);
  if (a.plausible != b.plausible) return !a.plausible;
  if (a.longer_than_step != b.longer_than_step) return a.longer_than_step > b.longer_than_step;
  if (over_a != over_b) return over_a > over_b;
  return a.same_start_kernels > b.same_start_kernels;
}

}  // namespace

std::optional<StepPlausibility> WorstStepPlausibility(const model::RankProfile& profile) {
  std::vector<int32_t> steps = profile.device_events.Steps();
  if (steps.empty()) steps.push_back(model::kNoStep);
  std::optional<StepPlausibility> worst;
  for (int32_t step : steps) {
    StepPlausibility p = Measure(profile, step);
    if (p.compute_kernels == 0) continue;
    if (!worst || Worse(p, *worst)) worst = p;
  }
  return worst;
}

std::string PlausibilityWarning(const model::RankProfile& profile) {
  const std::optional<StepPlausibility> p = WorstStepPlausibility(profile);
  if (!p || p->plausible) return "";
  const std::string file = std::filesystem::path(profile.device_events_from).filename().string();
  const std::string where =
      p->step == model::kNoStep ? "the capture" : fmt::format("step {}", p->step);
  const std::string longer =
      p->longer_than_step > 0
          ? fmt::format(
                "; {} device task(s) last longer than the whole step ({:.3f} ms by "
                "step_trace_time.csv)",
                p->longer_than_step, static_cast<double>(p->profiler_step_ns) / 1e6)
          : "";
  return fmt::format(
      "implausible device timeline in {}: in {} the {} compute kernels add up to {:.2f}x the time "
      "they cover on {} stream(s) (at most {}x is possible: a stream runs one kernel at a time), "
      "and {} of them start at the same instant as the previous kernel of their stream{}. The "
      "times were probably rounded or merged (e.g. a spreadsheet rewriting Start Time(us) as "
      "1.76425E+15, or Duration in another unit), so the timeline is set aside: each step's time "
      "budget comes from step_trace_time.csv (none where it lacks the step), and nothing "
      "measured on the timeline is shown as a number (busy span, issue rate, step-start wait, "
      "gaps; the gains of the findings that need it are not computed); re-export the profile or "
      "check its time columns",
      file, where, p->compute_kernels, p->concurrency, p->streams, p->streams,
      p->same_start_kernels, longer);
}

}  // namespace trainscope::analysis
