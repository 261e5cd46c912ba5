// Quantiles of values that are visited, not held.
//
// A health judgement of a log of millions of records takes medians and
// quantiles of series tens of MB long (step times, intervals between
// records, throughput). Quantiles (statistics.h) selects in a copy of each,
// and a copy next to the series is what set the command's peak memory.
// Here the values are read a few times instead: a radix selection on their
// order (16 bits of a 64-bit key a pass, every wanted order statistic in the
// same passes), so the answer is the one Quantiles gives, bit for bit, with
// no copy. The caller's visitor recomputes the values on each pass (a field
// of the records, a difference of two timestamps).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "analysis/common/statistics.h"

namespace trainscope::analysis {

// A finite double's place in the order of all doubles as an unsigned key
// (negatives reversed below the positives). -0.0 is read as +0.0, as the
// comparison Quantiles sorts by sees them as equal.
inline uint64_t OrderKey(double value) {
  const uint64_t bits = std::bit_cast<uint64_t>(value == 0 ? 0.0 : value);
  constexpr uint64_t kSign = uint64_t{1} << 63;
  return (bits & kSign) != 0 ? ~bits : bits | kSign;
}

inline double FromOrderKey(uint64_t key) {
  constexpr uint64_t kSign = uint64_t{1} << 63;
  return std::bit_cast<double>((key & kSign) != 0 ? key & ~kSign : ~key);
}

// Order statistics of |n| keys by radix selection: Add every key once per
// pass while NeedsPass(), then read each rank's key. Ranks whose keys share
// their known high bits share a histogram, so the passes are four whatever
// the number of ranks.
class OrderStatistics {
 public:
  // |ranks|: 0-based order statistics wanted (any order, repeats allowed),
  // each < n.
  explicit OrderStatistics(std::vector<size_t> ranks);

  bool NeedsPass() const { return shift_ >= 0; }
  void BeginPass();
  void Add(uint64_t key) {
    for (size_t g = 0; g < groups_; ++g) {
      if ((key & mask_) == prefixes_[g]) {
        ++counts_[(g << kDigitBits) + ((key >> shift_) & kDigitMask)];
      }
    }
  }
  void EndPass();

  // The key at |rank| (one of the ranks given).
  uint64_t KeyAt(size_t rank) const;

 private:
  static constexpr int kDigitBits = 16;
  static constexpr uint64_t kDigitMask = (uint64_t{1} << kDigitBits) - 1;

  struct Wanted {
    size_t rank = 0;
    size_t within = 0;    // the rank among the keys that share |prefix|
    uint64_t prefix = 0;  // the key's bits known so far (above shift_ + 16)
  };
  std::vector<Wanted> wanted_;  // by rank
  int shift_ = 64 - kDigitBits;
  uint64_t mask_ = 0;               // the bits a key's prefix is compared on
  std::vector<uint64_t> prefixes_;  // the distinct prefixes of this pass
  size_t groups_ = 0;
  std::vector<uint32_t> counts_;  // a histogram of the pass' digit per group
};

// Quantiles |qs| (ascending, in [0, 1]) of the |n| finite values that
// |for_each| visits, as Quantiles computes them (linear interpolation
// between the order statistics around q (n - 1)), reading the values four
// times instead of holding them. |for_each(visit)| calls visit(double) once
// for each value, the same values in every call. Zeros when n is 0, like
// Quantiles.
template <class ForEach>
std::vector<double> QuantilesByRadix(ForEach&& for_each, size_t n, const std::vector<double>& qs) {
  std::vector<double> out;
  if (n == 0) {
    out.assign(qs.size(), 0.0);
    return out;
  }
  if (n > UINT32_MAX) {  // past the histograms' counts: select in a copy
    std::vector<double> values;
    values.reserve(n);
    for_each([&values](double v) { values.push_back(v); });
    return Quantiles(values, qs);
  }
  struct Position {
    size_t lower = 0;
    double fraction = 0;
    bool upper = false;  // the next order statistic is needed too
  };
  std::vector<Position> positions;
  std::vector<size_t> ranks;
  for (const double q : qs) {
    const double position = std::clamp(q, 0.0, 1.0) * static_cast<double>(n - 1);
    const auto lower = static_cast<size_t>(std::floor(position));
    const double fraction = position - static_cast<double>(lower);
    const bool upper = lower + 1 < n && fraction > 0;
    positions.push_back({lower, fraction, upper});
    ranks.push_back(lower);
    if (upper) ranks.push_back(lower + 1);
  }
  OrderStatistics select(std::move(ranks));
  while (select.NeedsPass()) {
    select.BeginPass();
    for_each([&select](double v) { select.Add(OrderKey(v)); });
    select.EndPass();
  }
  for (const Position& p : positions) {
    const double low = FromOrderKey(select.KeyAt(p.lower));
    const double high = p.upper ? FromOrderKey(select.KeyAt(p.lower + 1)) : low;
    out.push_back(InterpolateOrderStatistics(low, high, p.fraction));
  }
  return out;
}

// Up to this many values a selection in a copy (at most 2 MiB) costs less
// than the radix passes, whose four histograms hold 64 K counts each: a
// rank of a few thousand kernels a step, thousands of steps, paid 256 KiB
// of zeroed counts a pass per step (12 % of a 1,024-rank job's CPU).
inline constexpr size_t kCopyUpTo = size_t{1} << 18;

// QuantilesByRadix, the same values bit for bit, or Quantiles of a copy of
// the values where there are at most kCopyUpTo of them.
template <class ForEach>
std::vector<double> QuantilesOfVisited(ForEach&& for_each, size_t n,
                                       const std::vector<double>& qs) {
  if (n == 0 || n > kCopyUpTo) return QuantilesByRadix(std::forward<ForEach>(for_each), n, qs);
  std::vector<double> values;
  values.reserve(n);
  for_each([&values](double v) { values.push_back(v); });
  return Quantiles(values, qs);
}

// The |rank|-th smallest (0-based, < n) of the |n| int64 values that
// |for_each| visits (for_each(visit) calls visit(int64_t) once for each),
// selected as QuantilesOfVisited selects: in a copy up to kCopyUpTo values,
// else by the radix passes, which read the values four times.
template <class ForEach>
int64_t OrderStatisticOfVisited(ForEach&& for_each, size_t n, size_t rank) {
  if (n <= kCopyUpTo || n > UINT32_MAX) {
    std::vector<int64_t> values;
    values.reserve(n);
    for_each([&values](int64_t v) { values.push_back(v); });
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(rank),
                     values.end());
    return values[rank];
  }
  constexpr uint64_t kSign = uint64_t{1} << 63;  // an int64's order as unsigned keys
  OrderStatistics select({rank});
  while (select.NeedsPass()) {
    select.BeginPass();
    for_each([&select](int64_t v) { select.Add(static_cast<uint64_t>(v) ^ kSign); });
    select.EndPass();
  }
  return static_cast<int64_t>(select.KeyAt(rank) ^ kSign);
}

}  // namespace trainscope::analysis
