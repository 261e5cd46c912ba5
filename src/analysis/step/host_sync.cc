#include "analysis/step/host_sync.h"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/step/device_idle.h"
#include "model/iteration.h"

namespace trainscope::analysis {

bool IsHostSyncCall(std::string_view name) {
  static constexpr std::array<std::string_view, 9> kCalls = {
      "cudaStreamSynchronize",  "cudaDeviceSynchronize",  "cudaEventSynchronize",
      "hipStreamSynchronize",   "hipDeviceSynchronize",   "hipEventSynchronize",
      "aclrtSynchronizeStream", "aclrtSynchronizeDevice", "aclrtSynchronizeEvent"};
  return std::find(kCalls.begin(), kCalls.end(), name) != kCalls.end();
}

namespace {

// Whether host op |op| runs inside .item() (aten::_local_scalar_dense), a
// few levels up at most.
bool InsideItem(const model::RankProfile& profile, int32_t op) {
  const model::HostOps& ops = profile.timeline.host_ops;
  for (int depth = 0; op != model::kNoIndex && depth < 6; ++depth) {
    const auto index = static_cast<size_t>(op);
    if (index >= ops.size()) return false;
    if (profile.strings.Get(ops.name[index]) == "aten::_local_scalar_dense") return true;
    op = ops.parent[index];
  }
  return false;
}

// A runtime copy call: 1 synchronous (always blocks), 2 asynchronous
// (blocks when the copy is to or from pageable memory), 0 neither.
int CopyCallKind(std::string_view name) {
  if (name == "cudaMemcpy" || name == "hipMemcpy" || name == "cudaMemcpy2D" ||
      name == "hipMemcpy2D")
    return 1;
  if (name == "cudaMemcpyAsync" || name == "hipMemcpyAsync" || name == "hipMemcpyWithStream")
    return 2;
  return 0;
}

// The device copy of each correlation id (runtime calls link to their
// device activity by it).
std::unordered_map<int64_t, uint32_t> CopiesByCorrelation(const model::DeviceEvents& events) {
  std::unordered_map<int64_t, uint32_t> copies;
  for (size_t i = 0; i < events.size(); ++i) {
    if (events.kind[i] == model::ActivityKind::kMemcpy && events.correlation[i] != model::kNoId)
      copies.emplace(events.correlation[i], static_cast<uint32_t>(i));
  }
  return copies;
}

// The outermost aten:: op above |op| (what the user called: aten::item
// above aten::_local_scalar_dense), and the source line of the nearest op
// with a Python stack.
std::pair<std::string, std::string> SiteOf(const model::RankProfile& profile, int32_t op) {
  const model::HostOps& ops = profile.timeline.host_ops;
  std::string framework_op;
  std::string source;
  for (int depth = 0; op != model::kNoIndex && depth < 64; ++depth) {
    const auto index = static_cast<size_t>(op);
    if (index >= ops.size()) break;
    const std::string_view name = profile.strings.Get(ops.name[index]);
    if (name.starts_with("aten::")) framework_op = std::string(name);
    if (source.empty() && ops.source[index] != StringPool::kEmpty)
      source = std::string(model::InnermostUserFrame(profile.strings.Get(ops.source[index])));
    op = ops.parent[index];
  }
  return {framework_op, source};
}

}  // namespace

std::vector<uint32_t> FindHostSyncCalls(const model::RankProfile& profile) {
  const model::HostOps& ops = profile.timeline.host_ops;
  // Names repeat: each distinct name is looked at once.
  std::vector<int8_t> is_sync(profile.strings.size(), -1);
  std::vector<int8_t> copy_kind(profile.strings.size(), -1);
  std::vector<uint32_t> calls;
  std::vector<uint32_t> async_copies;
  for (size_t i = 0; i < ops.size(); ++i) {
    const StringId name = ops.name[i];
    if (name >= is_sync.size()) continue;
    if (is_sync[name] < 0) {
      const std::string_view text = profile.strings.Get(name);
      is_sync[name] = IsHostSyncCall(text) ? 1 : 0;
      copy_kind[name] = static_cast<int8_t>(CopyCallKind(text));
    }
    if (is_sync[name] == 1 || copy_kind[name] == 1) calls.push_back(static_cast<uint32_t>(i));
    if (copy_kind[name] == 2) async_copies.push_back(static_cast<uint32_t>(i));
  }
  if (!async_copies.empty()) {
    // An async copy blocked the host when the call returned only after its
    // device copy had ended.
    const model::DeviceEvents& events = profile.device_events;
    const std::unordered_map<int64_t, uint32_t> copies = CopiesByCorrelation(events);
    for (const uint32_t i : async_copies) {
      const auto it = copies.find(ops.correlation[i]);
      if (it == copies.end()) continue;
      if (ops.start_ns[i] + ops.duration_ns[i] >= events.end_ns(it->second)) calls.push_back(i);
    }
  }
  std::sort(calls.begin(), calls.end(),
            [&](uint32_t a, uint32_t b) { return ops.start_ns[a] < ops.start_ns[b]; });
  return calls;
}

std::optional<SyncIdleWindow> SyncIdleWindowOf(const model::HostOps& ops, uint32_t call,
                                               const std::vector<int64_t>& starts,
                                               std::optional<int64_t> no_next_end) {
  const int64_t end = ops.end_ns(call);
  const auto next = std::lower_bound(starts.begin(), starts.end(), end);
  if (next == starts.end() && !no_next_end) return std::nullopt;
  const int64_t refill_end = next == starts.end() ? *no_next_end : *next;
  return SyncIdleWindow{ops.start_ns[call], std::max(end, refill_end), ops.duration_ns[call]};
}

std::optional<HostSyncStats> ComputeHostSync(const model::RankProfile& profile, int32_t step,
                                             const std::vector<uint32_t>& calls) {
  const model::HostOps& ops = profile.timeline.host_ops;
  const model::DeviceEvents& events = profile.device_events;
  const model::RowSet rows = events.RowsOf(step);
  if (ops.size() == 0 || rows.empty()) return std::nullopt;
  const std::optional<model::StepExtent> extent = events.ExtentOf(step);
  if (!extent) return std::nullopt;
  // The step's device activity as a union, and its starts for "the first
  // device event after".
  const std::vector<Interval> busy = DeviceBusy(events, rows);
  std::vector<int64_t> starts;
  starts.reserve(rows.size());
  for (uint32_t i : rows) starts.push_back(events.start_ns[i]);
  std::sort(starts.begin(), starts.end());
  HostSyncStats stats;
  // A host wait belongs to the step the host was in when it waited: the
  // first sync of step N+1 is issued while step N still runs on the device.
  int64_t window_start = extent->first_start_ns;
  int64_t window_end = extent->last_end_ns;
  const std::vector<model::Step>& steps = profile.timeline.steps;
  if (const auto k = model::HostStepIndex(steps, step); k && step != model::kNoStep) {
    window_start = steps[*k].start_ns;
    window_end = steps[*k].end_ns;
  }
  // After the step's last device work the device idles until the next
  // iteration starts (on a GPU trace the step's time runs to there).
  const std::optional<model::Iteration> iteration = model::IterationOf(profile, step);
  const int64_t step_end = iteration ? iteration->end_ns : extent->last_end_ns;
  std::map<std::pair<std::string, std::string>, int64_t> idle_by_site;
  auto first = std::lower_bound(calls.begin(), calls.end(), window_start,
                                [&](uint32_t i, int64_t t) { return ops.start_ns[i] < t; });
  for (auto it = first; it != calls.end() && ops.start_ns[*it] < window_end; ++it) {
    const uint32_t i = *it;
    ++stats.syncs;
    stats.sync_ns += ops.duration_ns[i];
    if (InsideItem(profile, ops.parent[i])) ++stats.item_calls;
    if (!IsHostSyncCall(profile.strings.Get(ops.name[i]))) ++stats.blocking_copies;
    // A short sync on an already empty queue costs little: the idle after
    // it is host-bound's.
    const SyncIdleWindow window = *SyncIdleWindowOf(ops, i, starts, step_end);
    const int64_t idle = std::min(window.cap_ns, IdleIn(busy, window.from_ns, window.to_ns));
    stats.idle_ns += idle;
    idle_by_site[SiteOf(profile, static_cast<int32_t>(i))] += idle;
  }
  for (const auto& [site, idle] : idle_by_site) {
    if (idle <= stats.site_idle_ns) continue;
    stats.site_idle_ns = idle;
    stats.site_op = site.first;
    stats.site_source = site.second;
  }
  return stats;
}

}  // namespace trainscope::analysis
