#include "analysis/step/host_sync.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include "analysis/step/device_idle.h"

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

}  // namespace

std::vector<uint32_t> FindHostSyncCalls(const model::RankProfile& profile) {
  const model::HostOps& ops = profile.timeline.host_ops;
  // Names repeat: each distinct name is looked at once.
  std::vector<int8_t> is_sync(profile.strings.size(), -1);
  std::vector<uint32_t> calls;
  for (size_t i = 0; i < ops.size(); ++i) {
    const StringId name = ops.name[i];
    if (name >= is_sync.size()) continue;
    if (is_sync[name] < 0) is_sync[name] = IsHostSyncCall(profile.strings.Get(name)) ? 1 : 0;
    if (is_sync[name] == 1) calls.push_back(static_cast<uint32_t>(i));
  }
  std::sort(calls.begin(), calls.end(),
            [&](uint32_t a, uint32_t b) { return ops.start_ns[a] < ops.start_ns[b]; });
  return calls;
}

std::optional<HostSyncStats> ComputeHostSync(const model::RankProfile& profile, int32_t step,
                                             const std::vector<uint32_t>& calls) {
  const model::HostOps& ops = profile.timeline.host_ops;
  const model::DeviceEvents& events = profile.device_events;
  const std::span<const uint32_t> rows = events.RowsOf(step);
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
  auto first = std::lower_bound(calls.begin(), calls.end(), extent->first_start_ns,
                                [&](uint32_t i, int64_t t) { return ops.start_ns[i] < t; });
  for (auto it = first; it != calls.end() && ops.start_ns[*it] < extent->last_end_ns; ++it) {
    const size_t i = *it;
    const int64_t start = ops.start_ns[i];
    const int64_t end = start + ops.duration_ns[i];
    ++stats.syncs;
    stats.sync_ns += ops.duration_ns[i];
    if (InsideItem(profile, ops.parent[i])) ++stats.item_calls;
    // The device idles from the sync until the host's next work arrives.
    // Without the sync the host would have issued that work earlier by at
    // most the time it waited, so that wait bounds the sync's cost: a short
    // sync on an already empty queue costs little (the idle is host-bound's).
    const auto next = std::lower_bound(starts.begin(), starts.end(), end);
    const int64_t refill_end = next == starts.end() ? extent->last_end_ns : *next;
    stats.idle_ns += std::min(ops.duration_ns[i], IdleIn(busy, start, std::max(end, refill_end)));
  }
  return stats;
}

}  // namespace trainscope::analysis
