#include "analysis/step/host_idle_spans.h"

#include <algorithm>
#include <optional>

#include "analysis/common/coverage_sweep.h"
#include "analysis/step/device_idle.h"

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

// Each sync's idle: from its start to the device's next event after it
// returns, the first |duration| of it (host_sync.cc's bound).
std::vector<Interval> SyncIdle(const model::RankProfile& profile,
                               const std::vector<uint32_t>& sync_calls,
                               const std::vector<Interval>& gaps,
                               const std::vector<int64_t>& starts) {
  const model::HostOps& ops = profile.timeline.host_ops;
  std::vector<Interval> out;
  for (const uint32_t i : sync_calls) {
    const int64_t start = ops.start_ns[i];
    const int64_t end = ops.end_ns(i);
    const auto next = std::lower_bound(starts.begin(), starts.end(), end);
    if (next == starts.end()) continue;  // no device event after it: the capture's end
    int64_t budget = ops.duration_ns[i];
    auto gap = std::lower_bound(gaps.begin(), gaps.end(), start,
                                [](const Interval& g, int64_t t) { return g.end <= t; });
    for (; gap != gaps.end() && gap->start < *next && budget > 0; ++gap) {
      const int64_t from = std::max(gap->start, start);
      const int64_t to = std::min({gap->end, *next, from + budget});
      if (to <= from) continue;
      out.push_back({from, to});
      budget -= to - from;
    }
  }
  return UnionOf(std::move(out));
}

// The gaps ended by an event launched after the gap began.
std::vector<Interval> LaunchIdle(const model::RankProfile& profile, std::span<const uint32_t> rows,
                                 const std::vector<Interval>& gaps) {
  const model::DeviceEvents& events = profile.device_events;
  const model::HostOps& ops = profile.timeline.host_ops;
  std::vector<Interval> out;
  size_t next = 0;
  for (const Interval& gap : gaps) {
    while (next < rows.size() && events.start_ns[rows[next]] < gap.end) ++next;
    std::optional<int64_t> launched;
    for (size_t k = next; k < rows.size() && events.start_ns[rows[k]] == gap.end; ++k) {
      const int32_t op = events.launcher[rows[k]];
      if (op == model::kNoIndex || static_cast<size_t>(op) >= ops.size()) continue;
      const int64_t end = ops.end_ns(static_cast<size_t>(op));
      launched = launched ? std::min(*launched, end) : end;
    }
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
  const std::span<const uint32_t> rows =
      RowsByStart(events.start_ns, events.RowsOf(model::kNoStep), &storage);
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
