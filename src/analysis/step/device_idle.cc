#include "analysis/step/device_idle.h"

#include <algorithm>
#include <utility>

namespace trainscope::analysis {

std::vector<Interval> DeviceBusy(const model::DeviceEvents& events, model::RowSet rows) {
  std::vector<Interval> busy;
  busy.reserve(rows.size());
  for (uint32_t i : rows) busy.push_back(Interval{events.start_ns[i], events.end_ns(i)});
  return UnionOf(std::move(busy));
}

int64_t IdleIn(const std::vector<Interval>& busy, int64_t lo, int64_t hi) {
  if (hi <= lo) return 0;
  int64_t covered = 0;
  auto it = std::lower_bound(busy.begin(), busy.end(), lo,
                             [](const Interval& b, int64_t t) { return b.end <= t; });
  for (; it != busy.end() && it->start < hi; ++it) {
    covered += std::min(it->end, hi) - std::max(it->start, lo);
  }
  return (hi - lo) - covered;
}

}  // namespace trainscope::analysis
