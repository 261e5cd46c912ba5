#include "analysis/step/host_idle_spans.h"

#include <algorithm>
#include <optional>

#include "analysis/common/coverage_sweep.h"
#include "analysis/step/device_idle.h"
#include "analysis/step/host_sync.h"
#include "analysis/step/launch_gaps.h"

namespace trainscope::analysis {
namespace {

// The gaps between the pieces of |busy| (a union, by start).
std::vector<Interval> GapsOf(const std::vector<Interval>& busy) {
  std::vector<Interval> gaps;
  for (size_t g = 0; g + 1 < busy.size(); ++g) {
    if (busy[g + 1].start > busy[g].end) gaps.push_back({busy[g].end, busy[g + 1].start});
  }
  return gaps;
}

std::vector<Interval> IntersectionOf(const std::vector<Interval>& a,
                                     const std::vector<Interval>& b) {
  return DifferenceOf(a, DifferenceOf(a, b));
}

// Each sync's idle in its window (host_sync.h), the first of it up to the
// window's cap.
std::vector<Interval> SyncIdle(const model::RankProfile& profile,
                               const std::vector<uint32_t>& sync_calls,
                               const std::vector<Interval>& gaps,
                               const std::vector<int64_t>& starts) {
  std::vector<Interval> out;
  for (const uint32_t i : sync_calls) {
    // No device event after it: the capture's end, no idle to charge.
    const std::optional<SyncIdleWindow> window =
        SyncIdleWindowOf(profile.timeline.host_ops, i, starts, std::nullopt);
    if (!window) continue;
    int64_t budget = window->cap_ns;
    auto gap = std::lower_bound(gaps.begin(), gaps.end(), window->from_ns,
                                [](const Interval& g, int64_t t) { return g.end <= t; });
    for (; gap != gaps.end() && gap->start < window->to_ns && budget > 0; ++gap) {
      const int64_t from = std::max(gap->start, window->from_ns);
      const int64_t to = std::min({gap->end, window->to_ns, from + budget});
      if (to <= from) continue;
      out.push_back({from, to});
      budget -= to - from;
    }
  }
  return UnionOf(std::move(out));
}

// The gaps ended by an event launched after the gap began.
std::vector<Interval> LaunchIdle(const model::RankProfile& profile, model::RowSet rows,
                                 const std::vector<Interval>& gaps) {
  std::vector<Interval> out;
  size_t next = 0;
  for (const Interval& gap : gaps) {
    const std::optional<int64_t> launched = LaunchEndingGap(profile, rows, gap.end, &next);
    if (launched && *launched > gap.start) out.push_back(gap);
  }
  return out;
}

void Append(const std::vector<Interval>& pieces, HostIdleKind kind,
            std::vector<HostIdleSpan>* out) {
  for (const Interval& iv : pieces) out->push_back({iv.start, iv.end, kind});
}

}  // namespace

std::vector<HostIdleSpan> HostIdleSpans(const model::RankProfile& profile,
                                        const DataLoaderCalls& loader,
                                        const std::vector<uint32_t>& sync_calls) {
  const model::DeviceEvents& events = profile.device_events;
  if (profile.timeline.host_ops.size() == 0 || events.size() == 0) return {};
  std::vector<uint32_t> storage;
  const model::RowSet rows = RowsByStart(events.start_ns, events.RowsOf(model::kNoStep), &storage);
  const std::vector<Interval> busy =
      loader.device_busy.empty() ? DeviceBusy(events, rows) : loader.device_busy;
  // Before the capture's first device event the device is not recorded:
  // only the gaps between its events are idle.
  const std::vector<Interval> gaps = GapsOf(busy);
  std::vector<Interval> calls;
  calls.reserve(loader.calls.size());
  for (const DataLoaderCall& call : loader.calls) calls.push_back({call.start_ns, call.end_ns});
  const std::vector<Interval> loader_idle = IntersectionOf(gaps, calls);

  std::vector<int64_t> starts;
  starts.reserve(rows.size());
  for (const uint32_t i : rows) starts.push_back(events.start_ns[i]);
  std::sort(starts.begin(), starts.end());
  const std::vector<Interval> sync_idle =
      DifferenceOf(SyncIdle(profile, sync_calls, gaps, starts), loader_idle);
  const std::vector<Interval> launch_idle =
      DifferenceOf(DifferenceOf(LaunchIdle(profile, rows, gaps), loader_idle), sync_idle);

  std::vector<HostIdleSpan> spans;
  spans.reserve(loader_idle.size() + sync_idle.size() + launch_idle.size());
  Append(loader_idle, HostIdleKind::kDataLoader, &spans);
  Append(sync_idle, HostIdleKind::kHostSync, &spans);
  Append(launch_idle, HostIdleKind::kLaunch, &spans);
  std::sort(spans.begin(), spans.end(),
            [](const HostIdleSpan& a, const HostIdleSpan& b) { return a.start_ns < b.start_ns; });
  return spans;
}

}  // namespace trainscope::analysis
