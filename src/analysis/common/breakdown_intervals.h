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
std::vector<Interval> UnionOf(std::vector<Interval> intervals);
// Both inputs merged (UnionOf output).
std::vector<Interval> UnionOfMerged(const std::vector<Interval>& a, const std::vector<Interval>& b);
int64_t TotalLength(const std::vector<Interval>& merged);
// |a \ b| for merged a and b.
int64_t LengthMinus(const std::vector<Interval>& a, const std::vector<Interval>& b);

}  // namespace trainscope::analysis
