// Interval-union algebra on int64 ns: the core of every GPU time budget.
#pragma once

#include <cstdint>
#include <vector>

namespace trainscope::analysis {

struct Interval {
  int64_t start = 0;
  int64_t end = 0;  // exclusive
};

// Sorts and merges touching/overlapping intervals; empty ones are dropped.
// In place: the result reuses the input's storage.
std::vector<Interval> UnionOf(std::vector<Interval> intervals);

// The union of intervals added one at a time, merged as they come while
// they come in start order (device activity does: its table is sorted by
// start), so it holds the union's pieces instead of one entry per kernel
// and needs no sort or copy at the end; an interval out of start order
// makes it collect the rest and sort once in Take. Take() == UnionOf(all
// intervals added).
class UnionBuilder {
 public:
  void Add(Interval interval);
  std::vector<Interval> Take() &&;

 private:
  std::vector<Interval> pieces_;
  int64_t last_start_ = INT64_MIN;
  bool in_order_ = true;
};
// Both inputs merged (UnionOf output).
std::vector<Interval> UnionOfMerged(const std::vector<Interval>& a, const std::vector<Interval>& b);
int64_t TotalLength(const std::vector<Interval>& merged);
// |a \ b| for merged a and b.
int64_t LengthMinus(const std::vector<Interval>& a, const std::vector<Interval>& b);

}  // namespace trainscope::analysis
