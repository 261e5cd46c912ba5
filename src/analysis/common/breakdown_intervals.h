// Interval unions on int64 ns (device busy time, export tracks). The time
// budgets measure unions and differences in one sweep instead
// (coverage_sweep.h).
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

// |a| without |b|, both unions (by start, disjoint): the time in |a| that
// no interval of |b| covers, as a union.
std::vector<Interval> DifferenceOf(const std::vector<Interval>& a, const std::vector<Interval>& b);

}  // namespace trainscope::analysis
