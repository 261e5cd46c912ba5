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

}  // namespace trainscope::analysis
