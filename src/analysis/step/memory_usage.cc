#include "analysis/step/memory_usage.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "core/numbers.h"

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

void Max(std::optional<int64_t>* acc, std::optional<int64_t> value) {
  if (value && (!*acc || *value > **acc)) *acc = value;
}

// The PTA samples: peaks, the gap and the per-stream sample counts.
void AllocatorPeaks(const model::RankProfile& profile,
                    const std::vector<model::MemoryRecordRow>& records, const Window& w,
                    MemoryUsage* u, std::map<std::string, StreamMemory>* streams) {
  const model::MemoryRecordRow* last = nullptr;
  double weighted_gap = 0;
  double weight = 0;
  double gap_sum = 0;
  int64_t gaps = 0;
  for (const model::MemoryRecordRow& r : records) {
    if (!InWindow(r.ts_ns, w)) continue;
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

// A Kineto trace's [memory] events of device memory (Device Type other than
// 0, the CPU) as PTA samples: the PyTorch caching allocator's totals after
// each allocation or free, the same quantities as memory_record.csv's PTA
// rows (no Stream Ptr).
std::vector<model::MemoryRecordRow> KinetoSamples(const model::Timeline& timeline) {
  std::vector<model::MemoryRecordRow> rows;
  for (const model::MemoryEvent& e : timeline.memory) {
    if (e.device_type == 0) continue;
    model::MemoryRecordRow r;
    r.ts_ns = e.ts_ns;
    r.component = model::MemoryComponent::kPta;
    r.allocated_bytes = e.total_allocated;
    r.reserved_bytes = e.total_reserved;
    rows.push_back(r);
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const model::MemoryRecordRow& a, const model::MemoryRecordRow& b) {
                     return a.ts_ns < b.ts_ns;
                   });
  return rows;
}

}  // namespace

std::optional<MemoryUsage> ComputeMemoryUsage(const model::RankProfile& profile, int32_t step) {
  std::vector<model::MemoryRecordRow> kineto;
  if (profile.memory.empty()) {
    kineto = KinetoSamples(profile.timeline);
    if (kineto.empty()) return std::nullopt;
  }
  const std::vector<model::MemoryRecordRow>& records =
      profile.memory.empty() ? kineto : profile.memory.records;
  const std::optional<Window> window = StepWindow(profile, step);
  if (!window) return std::nullopt;
  MemoryUsage u;
  u.window_from = window->from;
  u.samples_from = profile.memory.empty() ? "kineto [memory]" : "memory_record.csv";
  std::map<std::string, StreamMemory> streams;
  AllocatorPeaks(profile, records, *window, &u, &streams);
  Holders(profile, *window, &u, &streams);
  Modules(profile, *window, &u);
  for (auto& [name, s] : streams) {
    s.stream = name;
    u.streams.push_back(std::move(s));
  }
  // The window as the samples show it: open ends closed at the first and
  // last sample of the rank's allocator.
  u.window_start_ns = window->start_ns;
  u.window_end_ns = window->end_ns;
  if (!records.empty()) {
    if (u.window_start_ns == 0) u.window_start_ns = records.front().ts_ns;
    if (u.window_end_ns == kMaxTimeNs) u.window_end_ns = records.back().ts_ns;
  }
  return u;
}

}  // namespace trainscope::analysis
