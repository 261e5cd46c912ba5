#include "analysis/step/memory_usage.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <span>
#include <string_view>
#include <vector>

#include "analysis/common/device_memory.h"
#include "core/numbers.h"
#include "core/sorted_runs.h"

namespace trainscope::analysis {
namespace {

struct Window {
  int64_t start_ns = 0;
  int64_t end_ns = kMaxTimeNs;  // exclusive
  std::string from;
};

// The step's window: the host's ProfilerStep#N when a trace gave it, else
// from the step's first device event to the next step's first (the first
// step open to the capture's start, the last to its end: every sample
// belongs to one step), else nothing.
std::optional<Window> StepWindow(const model::RankProfile& profile, int32_t step) {
  if (step == model::kNoStep) return Window{0, kMaxTimeNs, "capture"};
  for (const model::Step& s : profile.timeline.steps) {
    if (s.number == step && s.end_ns > s.start_ns) return Window{s.start_ns, s.end_ns, "host step"};
  }
  const model::DeviceEvents& events = profile.device_events;
  const std::vector<int32_t> steps = events.Steps();
  const auto it = std::find(steps.begin(), steps.end(), step);
  if (it == steps.end()) return std::nullopt;
  Window window{0, kMaxTimeNs, "device steps"};
  if (it != steps.begin()) window.start_ns = events.ExtentOf(step)->first_start_ns;
  if (it + 1 != steps.end()) window.end_ns = events.ExtentOf(*(it + 1))->first_start_ns;
  return window;
}

bool InWindow(int64_t ts, const Window& w) { return ts >= w.start_ns && ts < w.end_ns; }

// The samples of |records| (in time order) inside the window.
template <typename Row>
std::span<const Row> InWindow(const std::vector<Row>& records, const Window& w) {
  const auto by_time = [](const Row& r, int64_t ts) { return r.ts_ns < ts; };
  const auto first = std::lower_bound(records.begin(), records.end(), w.start_ns, by_time);
  const auto last = std::lower_bound(first, records.end(), w.end_ns, by_time);
  return {first, last};
}

void Max(std::optional<int64_t>* acc, std::optional<int64_t> value) {
  if (value && (!*acc || *value > **acc)) *acc = value;
}

// The PTA samples: peaks, the gap and the per-stream sample counts.
template <typename Row>
void AllocatorPeaks(const model::RankProfile& profile, const std::vector<Row>& records,
                    const Window& w, MemoryUsage* u, std::map<std::string, StreamMemory>* streams) {
  const Row* last = nullptr;
  double weighted_gap = 0;
  double weight = 0;
  double gap_sum = 0;
  int64_t gaps = 0;
  for (const Row& r : InWindow(records, w)) {
    switch (r.component) {
      case model::MemoryComponent::kGe:
        Max(&u->ge_peak_allocated_bytes, r.allocated_bytes);
        Max(&u->ge_peak_reserved_bytes, r.reserved_bytes);
        continue;
      case model::MemoryComponent::kApp:
        Max(&u->app_peak_reserved_bytes, r.reserved_bytes);
        continue;
      case model::MemoryComponent::kPta:
        break;
      default:
        continue;
    }
    ++u->samples;
    if (r.stream != StringPool::kEmpty) {
      StreamMemory& s = (*streams)[std::string(profile.strings.Get(r.stream))];
      ++s.samples;
    }
    if (r.allocated_bytes &&
        (!u->peak_allocated_bytes || *r.allocated_bytes > *u->peak_allocated_bytes)) {
      u->peak_allocated_bytes = r.allocated_bytes;
      u->peak_allocated_ns = r.ts_ns;
      u->gap_at_peak_bytes.reset();
      if (r.reserved_bytes) u->gap_at_peak_bytes = *r.reserved_bytes - *r.allocated_bytes;
    }
    Max(&u->peak_reserved_bytes, r.reserved_bytes);
    if (!r.allocated_bytes || !r.reserved_bytes) continue;
    const int64_t gap = *r.reserved_bytes - *r.allocated_bytes;
    if (!u->gap_min_bytes || gap < *u->gap_min_bytes) u->gap_min_bytes = gap;
    Max(&u->gap_max_bytes, gap);
    gap_sum += static_cast<double>(gap);
    ++gaps;
    if (last != nullptr) {
      const double dt = static_cast<double>(r.ts_ns - last->ts_ns);
      weighted_gap += dt * static_cast<double>(*last->reserved_bytes - *last->allocated_bytes);
      weight += dt;
    }
    last = &r;
  }
  if (gaps == 0) return;
  if (last != nullptr && w.end_ns < kMaxTimeNs && w.end_ns > last->ts_ns) {
    const double dt = static_cast<double>(w.end_ns - last->ts_ns);
    weighted_gap += dt * static_cast<double>(*last->reserved_bytes - *last->allocated_bytes);
    weight += dt;
  }
  const double mean = weight > 0 ? weighted_gap / weight : gap_sum / static_cast<double>(gaps);
  u->gap_mean_bytes = static_cast<int64_t>(std::llround(mean));
}

// operator_memory.csv: allocations in the window per stream, and the PTA
// allocations live at the allocated peak.
void Holders(const model::RankProfile& profile, const Window& w, MemoryUsage* u,
             std::map<std::string, StreamMemory>* streams) {
  if (!profile.memory.has_operators) return;
  std::map<std::string, MemoryHolder> by_name;
  const std::optional<int64_t> peak = u->peak_allocated_ns;
  if (peak) u->live_at_peak_bytes = 0;
  for (const model::OperatorMemoryRow& r : profile.memory.operators) {
    if (!r.alloc_ns) continue;
    const std::string_view name = profile.strings.Get(r.name);
    StreamMemory* stream = nullptr;
    if (r.stream != StringPool::kEmpty) {
      stream = &(*streams)[std::string(profile.strings.Get(r.stream))];
    }
    if (stream != nullptr && InWindow(*r.alloc_ns, w)) ++stream->allocations;
    if (!peak || r.size_bytes <= 0 || name.starts_with("cann::")) continue;
    if (*r.alloc_ns > *peak || (r.release_ns && *r.release_ns <= *peak)) continue;
    AddSaturating(*u->live_at_peak_bytes, r.size_bytes);
    if (stream != nullptr) AddSaturating(stream->live_at_peak_bytes, r.size_bytes);
    MemoryHolder& h = by_name[std::string(name)];
    AddSaturating(h.bytes, r.size_bytes);
    ++h.allocations;
  }
  for (auto& [name, h] : by_name) {
    h.name = name;
    u->top_holders.push_back(std::move(h));
  }
  std::stable_sort(u->top_holders.begin(), u->top_holders.end(),
                   [](const MemoryHolder& a, const MemoryHolder& b) { return a.bytes > b.bytes; });
  constexpr size_t kTopHolders = 10;
  if (u->top_holders.size() > kTopHolders) u->top_holders.resize(kTopHolders);
}

// npu_module_mem.csv: per component the largest sample in the window, else
// the last before its end (samples are ~20 ms apart: a short step may hold
// none).
void Modules(const model::RankProfile& profile, const Window& w, MemoryUsage* u) {
  struct Seen {
    std::optional<int64_t> in_window;
    std::optional<int64_t> before;
  };
  std::map<std::string, Seen> seen;
  for (const model::ModuleMemoryRow& r : profile.memory.modules) {
    if (!r.reserved_bytes || r.ts_ns >= w.end_ns) continue;
    Seen& s = seen[std::string(profile.strings.Get(r.component))];
    if (r.ts_ns < w.start_ns) {
      s.before = r.reserved_bytes;
    } else {
      Max(&s.in_window, r.reserved_bytes);
    }
  }
  for (const auto& [component, s] : seen) {
    const std::optional<int64_t> bytes = s.in_window ? s.in_window : s.before;
    if (bytes) u->modules.push_back(ModuleMemory{component, *bytes});
  }
  std::stable_sort(u->modules.begin(), u->modules.end(),
                   [](const ModuleMemory& a, const ModuleMemory& b) {
                     return a.reserved_bytes > b.reserved_bytes;
                   });
}

// Element-wise, norm and cast operators: what an unfused chain is made of
// (their outputs are the intermediates a fused kernel keeps in registers).
bool IsElementwise(std::string_view name) {
  const size_t colon = name.rfind("::");
  const std::string_view op = colon == std::string_view::npos ? name : name.substr(colon + 2);
  static constexpr std::string_view kOps[] = {"mul",
                                              "add",
                                              "sub",
                                              "div",
                                              "pow",
                                              "exp",
                                              "rsqrt",
                                              "sqrt",
                                              "neg",
                                              "mean",
                                              "sigmoid",
                                              "silu",
                                              "gelu",
                                              "relu",
                                              "tanh",
                                              "softmax",
                                              "_softmax",
                                              "linalg_vector_norm",
                                              "_npu_dtype_cast",
                                              "_to_copy",
                                              "to",
                                              "copy_",
                                              "clone",
                                              "cat",
                                              "where",
                                              "masked_fill",
                                              "reciprocal",
                                              "square",
                                              "sum",
                                              "layer_norm",
                                              "native_layer_norm",
                                              "cos",
                                              "sin",
                                              "contiguous"};
  for (const std::string_view k : kOps) {
    if (op == k) return true;
  }
  return false;
}

int64_t ElementwiseLiveAtPeak(const model::RankProfile& profile, int64_t peak_ns) {
  int64_t bytes = 0;
  for (const model::OperatorMemoryRow& r : profile.memory.operators) {
    if (!r.alloc_ns || r.size_bytes <= 0 || *r.alloc_ns > peak_ns) continue;
    if (r.release_ns && *r.release_ns <= peak_ns) continue;
    if (IsElementwise(profile.strings.Get(r.name))) AddSaturating(bytes, r.size_bytes);
  }
  return bytes;
}

// The first of |starts| (ascending) inside the window.
std::optional<int64_t> FirstInWindow(const std::vector<int64_t>& starts, const Window& w) {
  const auto it = std::lower_bound(starts.begin(), starts.end(), w.start_ns);
  if (it == starts.end() || *it >= w.end_ns) return std::nullopt;
  return *it;
}

// The forward->backward boundary in the window: the earliest backward host
// op (a fwdbwd flow's end, else "autograd::engine::evaluate_function").
template <typename Row>
void Activation(const MemorySamples& samples, const std::vector<Row>& records, const Window& w,
                MemoryUsage* u) {
  std::optional<int64_t> backward = FirstInWindow(samples.backward_flow_starts(), w);
  if (!backward) backward = FirstInWindow(samples.autograd_starts(), w);
  for (const Row& r : InWindow(records, w)) {
    if (r.component != model::MemoryComponent::kPta || !r.allocated_bytes) {
      continue;
    }
    if (!u->start_allocated_bytes) u->start_allocated_bytes = r.allocated_bytes;
    if (backward && r.ts_ns <= *backward) u->backward_allocated_bytes = r.allocated_bytes;
  }
  if (!backward || !u->backward_allocated_bytes || !u->start_allocated_bytes) return;
  u->backward_start_ns = backward;
  // Less allocated at the boundary than at the step's start (memory of the
  // previous step freed during the forward, e.g. gradients set to None):
  // the difference is not the activations, which stay unknown.
  const int64_t activation = *u->backward_allocated_bytes - *u->start_allocated_bytes;
  if (activation >= 0) u->activation_bytes = activation;
}

// The device's capacity: deviceProperties' totalGlobalMem, else the
// device table by name (the trace's deviceProperties, the .db's NPU_INFO).
void Capacity(const model::RankProfile& profile, MemoryUsage* u) {
  for (const model::DeviceProperties& d : profile.timeline.devices) {
    if (d.total_global_mem > 0) {
      u->capacity_bytes = d.total_global_mem;
      u->capacity_from = "deviceProperties totalGlobalMem";
      break;
    }
  }
  if (!u->capacity_bytes) {
    std::string_view name = profile.info.device_name;
    if (name.empty() && !profile.timeline.devices.empty()) {
      name = profile.timeline.devices.front().name;
    }
    if (const std::optional<DeviceMemory> d = FindDeviceMemory(name)) {
      u->capacity_bytes = d->gib * (int64_t{1} << 30);
      u->capacity_from = "device table: " + std::string(d->device);
    }
  }
  if (u->capacity_bytes && u->peak_reserved_bytes) {
    u->headroom_bytes = *u->capacity_bytes - *u->peak_reserved_bytes;
  }
}

// At most kMemoryCurvePoints points: the window cut into equal time
// buckets, each kept as its sample with the largest allocated.
template <typename Row>
std::vector<MemoryCurvePoint> Curve(const std::vector<Row>& records, const Window& w) {
  std::vector<MemoryCurvePoint> all;
  for (const Row& r : InWindow(records, w)) {
    if (r.component != model::MemoryComponent::kPta || !r.allocated_bytes) {
      continue;
    }
    all.push_back(MemoryCurvePoint{r.ts_ns, *r.allocated_bytes, r.reserved_bytes});
  }
  if (all.size() <= kMemoryCurvePoints) return all;
  const int64_t t0 = all.front().ts_ns;
  const double span = static_cast<double>(all.back().ts_ns - t0) + 1;
  std::vector<MemoryCurvePoint> out;
  size_t bucket = kMemoryCurvePoints;  // none yet
  for (const MemoryCurvePoint& p : all) {
    const auto b = static_cast<size_t>(static_cast<double>(p.ts_ns - t0) / span *
                                       static_cast<double>(kMemoryCurvePoints));
    if (b != bucket) {
      out.push_back(p);
      bucket = b;
    } else if (p.allocated_bytes > out.back().allocated_bytes) {
      out.back() = p;
    }
  }
  return out;
}

}  // namespace

MemorySamples::MemorySamples(const model::RankProfile& profile) {
  const model::Timeline& t = profile.timeline;
  for (const model::FwdBwdLink& link : t.fwdbwd) {
    if (link.backward_op >= 0 && static_cast<size_t>(link.backward_op) < t.host_ops.size()) {
      backward_flow_starts_.push_back(t.host_ops.start_ns[static_cast<size_t>(link.backward_op)]);
    }
  }
  // Which names are autograd's, asked once per distinct string: a trace
  // has millions of host ops and a few thousand names.
  std::vector<uint8_t> is_autograd(profile.strings.size(), 0);
  bool any_autograd = false;
  for (size_t id = 0; id < is_autograd.size(); ++id) {
    if (profile.strings.Get(static_cast<StringId>(id))
            .starts_with("autograd::engine::evaluate_function")) {
      is_autograd[id] = 1;
      any_autograd = true;
    }
  }
  for (size_t i = 0; any_autograd && i < t.host_ops.size(); ++i) {
    if (is_autograd[t.host_ops.name[i]] != 0) autograd_starts_.push_back(t.host_ops.start_ns[i]);
  }
  std::sort(backward_flow_starts_.begin(), backward_flow_starts_.end());
  std::sort(autograd_starts_.begin(), autograd_starts_.end());
  const auto by_time = [](const auto& a, const auto& b) { return a.ts_ns < b.ts_ns; };
  if (!profile.memory.empty()) {
    from_ = profile.memory.records_from;
    borrowed_ = &profile.memory.records;
    // The readers sort their rows; a profile put together otherwise gets a
    // sorted copy, since the windows are found by binary search.
    if (!std::is_sorted(borrowed_->begin(), borrowed_->end(), by_time)) {
      owned_ = *borrowed_;
      StableSortNearlySorted(owned_.begin(), owned_.end(), by_time);
      own_ = true;
    }
    return;
  }
  // The PyTorch caching allocator's totals after each allocation or free:
  // the same quantities as memory_record.csv's PTA rows (Device Type 0 is
  // the CPU).
  from_ = "kineto [memory]";
  trace_.reserve(profile.timeline.memory.size());
  for (const model::MemoryEvent& e : profile.timeline.memory) {
    if (e.device_type == 0) continue;
    trace_.push_back(TraceMemorySample{e.ts_ns, {e.total_allocated}, {e.total_reserved}});
  }
  // A trace's samples come in a few runs in time order (sorted_runs.h).
  StableSortNearlySorted(trace_.begin(), trace_.end(), by_time);
  none_ = trace_.empty();
}

std::optional<MemoryUsage> ComputeMemoryUsage(const model::RankProfile& profile,
                                              const MemorySamples& samples, int32_t step) {
  if (samples.none()) return std::nullopt;
  const std::optional<Window> window = StepWindow(profile, step);
  if (!window) return std::nullopt;
  MemoryUsage u;
  u.window_from = window->from;
  u.samples_from = samples.from();
  std::map<std::string, StreamMemory> streams;
  // What the samples give (the peaks first: the holders, the live
  // elementwise bytes and the headroom are measured at them).
  u.window_start_ns = window->start_ns;
  u.window_end_ns = window->end_ns;
  samples.Visit([&](const auto& records) {
    AllocatorPeaks(profile, records, *window, &u, &streams);
    Activation(samples, records, *window, &u);
    u.curve = Curve(records, *window);
    // The window as the samples show it: open ends closed at the first and
    // last sample of the rank's allocator.
    if (!records.empty()) {
      if (u.window_start_ns == 0) u.window_start_ns = records.front().ts_ns;
      if (u.window_end_ns == kMaxTimeNs) u.window_end_ns = records.back().ts_ns;
    }
  });
  Holders(profile, *window, &u, &streams);
  Modules(profile, *window, &u);
  if (profile.memory.has_operators && u.peak_allocated_ns) {
    u.elementwise_live_at_peak_bytes = ElementwiseLiveAtPeak(profile, *u.peak_allocated_ns);
  }
  Capacity(profile, &u);
  for (auto& [name, s] : streams) {
    s.stream = name;
    u.streams.push_back(std::move(s));
  }
  return u;
}

std::optional<MemoryUsage> ComputeMemoryUsage(const model::RankProfile& profile, int32_t step) {
  const MemorySamples samples(profile);
  return ComputeMemoryUsage(profile, samples, step);
}

}  // namespace trainscope::analysis
