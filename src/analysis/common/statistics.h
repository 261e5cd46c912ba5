// Small statistics used by several analyses.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace trainscope::analysis {

// Quantile q in [0,1] of |sorted| (ascending) with linear interpolation
// between order statistics (numpy's default "linear" method), so p50 of an
// even count is the mean of the two middle values. 0 for an empty input.
double QuantileSorted(const std::vector<int64_t>& sorted, double q);

// The median, with the convention of QuantileSorted (p50): the middle value
// of an odd count, the mean of the two middle values of an even count (not
// the upper or lower one: with two values, either would be an extreme). 0
// for an empty input. O(n): nth_element, not a sort.
double Median(std::vector<double> values);

// low + (high - low) x fraction: the one place a quantile is interpolated
// between its two order statistics. Out of line, so that every caller gets
// the same rounding: a compiler may fuse the multiply and the add into one
// instruction in one function and not in another (the ThreadSanitizer
// build did, and two ways to the same quantile differed in the last bit).
double InterpolateOrderStatistics(double low, double high, double fraction);

// The same quantiles without sorting everything: nth_element per quantile,
// O(n) each. Reorders |values|. |qs| must be ascending.
std::vector<double> Quantiles(std::vector<int64_t>& values, const std::vector<double>& qs);
std::vector<double> Quantiles(std::vector<double>& values, const std::vector<double>& qs);

// Log-log duration density: log-spaced bins from min to max (in ns) with
// |bins_per_decade| bins per decade. density_per_decade of a bin is the
// fraction of all kernels that fall in it divided by its width in decades,
// so the curve integrates to the fraction inside [min, max) and curves of
// runs with different kernel counts are comparable.
struct DensityBin {
  double lo_ns = 0;  // log-spaced edges: not whole nanoseconds
  double hi_ns = 0;
  int64_t count = 0;
  double density_per_decade = 0;
};

struct DurationDensity {
  int bins_per_decade = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  int64_t below_min = 0;  // durations < min (e.g. sub-microsecond)
  int64_t above_max = 0;  // durations >= max
  std::vector<DensityBin> bins;
};

// The density built one duration at a time (a step's kernels counted as
// they are read, not copied out first).
class DurationDensityBuilder {
 public:
  explicit DurationDensityBuilder(int64_t min_ns = 1'000, int64_t max_ns = 1'000'000'000,
                                  int bins_per_decade = 10);
  void Add(int64_t duration_ns);
  DurationDensity Finish() &&;

  // The bin a duration in [min_ns, max_ns) falls in: BinOf from the bins'
  // integer edges (what Add uses), BinByLogarithm from its logarithm (what
  // the bins mean); the two agree.
  size_t BinOf(int64_t duration_ns) const;
  int BinByLogarithm(int64_t duration_ns) const;

 private:
  DurationDensity density_;
  double log_min_ = 0;
  int64_t added_ = 0;
  // A duration's bin is the count of bins after the first whose first
  // duration is at or below it: the count up to its power of two, looked
  // up by its bit width, plus a few compares with the edges above that
  // power (independent loads, no log10 a kernel).
  // first_of_bin_[i]: the shortest duration of bin i + 1 (BinByLogarithm),
  // then edges_per_octave_ times INT64_MAX.
  std::vector<int64_t> first_of_bin_;
  // By bit width w (63 at most: durations are positive int64): the edges
  // at or below 2^(w - 1) (none for w = 0).
  std::array<uint32_t, 64> edges_below_width_{};
  size_t edges_per_octave_ = 0;  // the most edges in (2^(w - 1), 2^w)
};

DurationDensity ComputeDurationDensity(const std::vector<int64_t>& durations_ns,
                                       int64_t min_ns = 1'000, int64_t max_ns = 1'000'000'000,
                                       int bins_per_decade = 10);

}  // namespace trainscope::analysis
