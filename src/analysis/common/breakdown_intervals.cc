#include "analysis/common/breakdown_intervals.h"

#include <algorithm>

namespace trainscope::analysis {

namespace {
bool ByStart(const Interval& a, const Interval& b) { return a.start < b.start; }
}  // namespace

std::vector<Interval> UnionOf(std::vector<Interval> v) {
  // The merge below only needs start order (ties merge either way). Device
  // activity usually arrives sorted by start already: skip the sort then.
  if (!std::is_sorted(v.begin(), v.end(), ByStart)) std::sort(v.begin(), v.end(), ByStart);
  size_t kept = 0;  // v[0, kept) is the union so far; reads stay ahead of writes
  for (const Interval& iv : v) {
    if (iv.end <= iv.start) continue;
    if (kept > 0 && iv.start <= v[kept - 1].end) {
      v[kept - 1].end = std::max(v[kept - 1].end, iv.end);
    } else {
      v[kept++] = iv;
    }
  }
  v.resize(kept);
  return v;
}

std::vector<Interval> DifferenceOf(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> out;
  size_t j = 0;
  for (const Interval& iv : a) {
    int64_t from = iv.start;
    while (j < b.size() && b[j].end <= from) ++j;
    for (size_t k = j; k < b.size() && b[k].start < iv.end; ++k) {
      if (b[k].start > from) out.push_back({from, b[k].start});
      from = std::max(from, b[k].end);
    }
    if (from < iv.end) out.push_back({from, iv.end});
  }
  return out;
}

}  // namespace trainscope::analysis
