#include "analysis/common/breakdown_intervals.h"

#include <algorithm>
#include <iterator>

namespace trainscope::analysis {

namespace {
bool ByStart(const Interval& a, const Interval& b) { return a.start < b.start; }
}  // namespace

std::vector<Interval> UnionOf(std::vector<Interval> v) {
  // The merge below only needs start order (ties merge either way). Device
  // activity usually arrives sorted by start already: skip the sort then.
  if (!std::is_sorted(v.begin(), v.end(), ByStart)) std::sort(v.begin(), v.end(), ByStart);
  std::vector<Interval> out;
  for (const Interval& iv : v) {
    if (iv.end <= iv.start) continue;
    if (!out.empty() && iv.start <= out.back().end) {
      out.back().end = std::max(out.back().end, iv.end);
    } else {
      out.push_back(iv);
    }
  }
  return out;
}

std::vector<Interval> UnionOfMerged(const std::vector<Interval>& a,
                                    const std::vector<Interval>& b) {
  // Both inputs are sorted unions: a linear merge keeps start order.
  std::vector<Interval> all;
  all.reserve(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(all), ByStart);
  return UnionOf(std::move(all));
}

int64_t TotalLength(const std::vector<Interval>& merged) {
  int64_t total = 0;
  for (const Interval& iv : merged) total += iv.end - iv.start;
  return total;
}

int64_t LengthMinus(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  int64_t total = 0;
  size_t j = 0;
  for (const Interval& iv : a) {
    int64_t cursor = iv.start;
    while (j < b.size() && b[j].end <= cursor) ++j;
    size_t k = j;
    while (k < b.size() && b[k].start < iv.end) {
      if (b[k].start > cursor) total += b[k].start - cursor;
      cursor = std::max(cursor, b[k].end);
      if (cursor >= iv.end) break;
      ++k;
    }
    if (cursor < iv.end) total += iv.end - cursor;
  }
  return total;
}

}  // namespace trainscope::analysis
