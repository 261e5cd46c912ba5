#include "analysis/common/host_idle.h"

#include <algorithm>

namespace trainscope::analysis {

HostIdleTimes HostIdleWithin(const std::vector<HostIdleSpan>& spans, int64_t from, int64_t to) {
  HostIdleTimes times;
  if (to <= from) return times;
  auto it = std::lower_bound(spans.begin(), spans.end(), from,
                             [](const HostIdleSpan& s, int64_t t) { return s.end_ns <= t; });
  for (; it != spans.end() && it->start_ns < to; ++it) {
    const int64_t lo = std::max(it->start_ns, from);
    const int64_t hi = std::min(it->end_ns, to);
    if (hi > lo) times.Add(it->kind, hi - lo);
  }
  return times;
}

}  // namespace trainscope::analysis
