#include "analysis/step/input_bound.h"

#include <algorithm>
#include <limits>

#include "analysis/step/device_idle.h"
#include "model/iteration.h"

namespace trainscope::analysis {

bool IsDataLoaderCall(std::string_view name) {
  constexpr std::string_view kLoader = "enumerate(DataLoader)#";
  constexpr std::string_view kNext = ".__next__";
  constexpr std::string_view kPipe = "enumerate(DataPipe)#";
  if (name.starts_with(kPipe)) return true;
  return name.starts_with(kLoader) && name.ends_with(kNext);
}

namespace {

// The host window of |step| (ProfilerStep#N, or the iteration of a
// repeated annotation); nullptr when the timeline has none for it.
const model::Step* HostWindow(const model::Timeline& timeline, int32_t step) {
  if (step == model::kNoStep) return nullptr;
  for (const model::Step& s : timeline.steps) {
    if (s.number == step) return &s;
  }
  return nullptr;
}

}  // namespace

DataLoaderCalls FindDataLoaderCalls(const model::RankProfile& profile) {
  const model::HostOps& ops = profile.timeline.host_ops;
  // Names repeat: each distinct name is looked at once.
  std::vector<int8_t> kind(profile.strings.size(), -1);  // 0 no, 1 loader, 2 single-process
  std::vector<DataLoaderCall> found;
  for (size_t i = 0; i < ops.size(); ++i) {
    const StringId name = ops.name[i];
    if (name >= kind.size()) continue;
    if (kind[name] < 0) {
      const std::string_view text = profile.strings.Get(name);
      kind[name] = !IsDataLoaderCall(text)                                               ? 0
                   : text.find("_SingleProcessDataLoaderIter") != std::string_view::npos ? 2
                                                                                         : 1;
    }
    if (kind[name] == 0 || ops.duration_ns[i] <= 0) continue;
    found.push_back(DataLoaderCall{ops.start_ns[i], ops.end_ns(i), kind[name] == 2});
  }
  std::sort(found.begin(), found.end(), [](const DataLoaderCall& a, const DataLoaderCall& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
  });
  DataLoaderCalls result;
  for (const DataLoaderCall& call : found) {
    // A record that starts inside the previous call is the same call: a
    // cpu_op/user_annotation copy, or a DataPipe nested in another.
    if (!result.calls.empty() && call.start_ns < result.calls.back().end_ns) {
      DataLoaderCall& last = result.calls.back();
      last.end_ns = std::max(last.end_ns, call.end_ns);
      last.single_process = last.single_process || call.single_process;
      continue;
    }
    result.calls.push_back(call);
  }
  if (!result.calls.empty()) {
    const model::DeviceEvents& events = profile.device_events;
    result.device_busy = DeviceBusy(events, events.RowsOf(model::kNoStep));
  }
  return result;
}

std::optional<InputBoundStats> ComputeInputBound(const model::RankProfile& profile, int32_t step,
                                                 const DataLoaderCalls& loader) {
  const model::DeviceEvents& events = profile.device_events;
  if (profile.timeline.host_ops.size() == 0 || events.RowsOf(step).empty()) return std::nullopt;
  const std::optional<model::StepExtent> extent = events.ExtentOf(step);
  if (!extent) return std::nullopt;
  // The step's calls start in its host window; without one, in its device
  // window; the whole capture has every call.
  int64_t from = extent->first_start_ns;
  int64_t to = extent->last_end_ns;
  int64_t lo = from;
  int64_t hi = to;
  if (step == model::kNoStep) {
    from = std::numeric_limits<int64_t>::min();
    to = std::numeric_limits<int64_t>::max();
    if (!loader.calls.empty()) {
      lo = std::min(lo, loader.calls.front().start_ns);
      hi = std::max(hi, loader.calls.back().end_ns);
    }
  } else if (const model::Step* window = HostWindow(profile.timeline, step)) {
    from = window->start_ns;
    to = window->end_ns;
    lo = std::min(lo, from);
    hi = std::max(hi, to);
  }
  // On a GPU trace the step is the iteration (model/iteration.h): its time
  // is the same number as the step's time budget, and the idle the loader
  // causes is counted inside it; the loader's host time stays whole.
  int64_t idle_lo = lo;
  int64_t idle_hi = hi;
  InputBoundStats stats;
  stats.step_ns = hi - lo;
  if (const std::optional<model::Iteration> iteration = model::IterationOf(profile, step)) {
    idle_lo = iteration->start_ns;
    idle_hi = iteration->end_ns;
    stats.step_ns = iteration->span_ns();
  }
  auto it = std::lower_bound(loader.calls.begin(), loader.calls.end(), from,
                             [](const DataLoaderCall& c, int64_t t) { return c.start_ns < t; });
  for (; it != loader.calls.end() && it->start_ns < to; ++it) {
    const int64_t start = std::max(it->start_ns, lo);
    const int64_t end = std::min(it->end_ns, hi);
    ++stats.calls;
    if (it->single_process) ++stats.single_process_calls;
    if (end <= start) continue;
    stats.loader_ns += end - start;
    // Before the capture's first device event the device's state is
    // unknown (the profiler was not recording it yet): no idle is claimed
    // there, so the first captured step's loader does not count work of the
    // step before the capture as idle.
    const int64_t seen = loader.device_busy.empty() ? end : loader.device_busy.front().start;
    stats.idle_ns +=
        IdleIn(loader.device_busy, std::max({start, seen, idle_lo}), std::min(end, idle_hi));
    stats.idle_in_window_ns += IdleIn(loader.device_busy, std::max(start, extent->first_start_ns),
                                      std::min(end, extent->last_end_ns));
  }
  return stats;
}

}  // namespace trainscope::analysis
