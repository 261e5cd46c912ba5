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

void UnionBuilder::Add(Interval interval) {
  if (!in_order_) {
    pieces_.push_back(interval);
    return;
  }
  if (interval.end <= interval.start) return;
  if (interval.start < last_start_) {
    in_order_ = false;  // the pieces so far are a union: Take merges the rest into them
    pieces_.push_back(interval);
    return;
  }
  last_start_ = interval.start;
  if (!pieces_.empty() && interval.start <= pieces_.back().end) {
    pieces_.back().end = std::max(pieces_.back().end, interval.end);
  } else {
    pieces_.push_back(interval);
  }
}

std::vector<Interval> UnionBuilder::Take() && {
  if (in_order_) return std::move(pieces_);
  return UnionOf(std::move(pieces_));
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
