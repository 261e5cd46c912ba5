#include "analysis/common/statistics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace trainscope::analysis {
namespace {

TEST(StatisticsTest, QuantilesInterpolateLikeNumpyLinear) {
  std::vector<int64_t> values = {10, 20, 30, 40};
  EXPECT_DOUBLE_EQ(QuantileSorted(values, 0.5), 25.0);
  EXPECT_DOUBLE_EQ(QuantileSorted(values, 0.0), 10.0);
  EXPECT_DOUBLE_EQ(QuantileSorted(values, 1.0), 40.0);
  // numpy.percentile([10,20,30,40], 90) == 37.0
  EXPECT_DOUBLE_EQ(QuantileSorted(values, 0.9), 37.0);
  EXPECT_DOUBLE_EQ(QuantileSorted({}, 0.5), 0.0);
  EXPECT_DOUBLE_EQ(QuantileSorted({7}, 0.99), 7.0);
}

TEST(StatisticsTest, MedianOfAnEvenCountIsTheMeanOfTheTwoMiddleValues) {
  // The convention of QuantileSorted's p50 (numpy.median): with two values
  // the median is between them, not the larger one (the old cluster and
  // motif medians returned 300 here).
  EXPECT_DOUBLE_EQ(Median({100, 300}), 200.0);
  EXPECT_DOUBLE_EQ(Median({40, 10, 30, 20}), 25.0);
  EXPECT_DOUBLE_EQ(Median({5, 1, 3}), 3.0);
  EXPECT_DOUBLE_EQ(Median({7}), 7.0);
  EXPECT_DOUBLE_EQ(Median({}), 0.0);
  // The same as p50 of QuantileSorted on any input.
  std::vector<int64_t> values = {9, 2, 7, 7, 1, 12, 4, 3};
  std::vector<double> as_double(values.begin(), values.end());
  std::sort(values.begin(), values.end());
  EXPECT_DOUBLE_EQ(Median(as_double), QuantileSorted(values, 0.5));
  values.pop_back();
  as_double.assign(values.begin(), values.end());
  std::reverse(as_double.begin(), as_double.end());
  EXPECT_DOUBLE_EQ(Median(as_double), QuantileSorted(values, 0.5));
}

TEST(StatisticsTest, DensityBinsAreLogSpacedFromOneMicrosecondToOneSecond) {
  DurationDensity density = ComputeDurationDensity({});
  ASSERT_EQ(density.bins.size(), 60u);  // 6 decades x 10 bins
  EXPECT_EQ(density.min_ns, 1'000);
  EXPECT_EQ(density.max_ns, 1'000'000'000);
  EXPECT_NEAR(density.bins.front().lo_ns, 1e3, 1e-6);
  EXPECT_NEAR(density.bins.back().hi_ns, 1e9, 1);
  EXPECT_NEAR(density.bins[10].lo_ns, 1e4, 1e-6);
}

// Add finds a duration's bin from the bins' integer edges; the bin its
// logarithm gives is what the bins mean. Every duration below 3 ms, both
// sides of every edge and a million durations up to the maximum, for the
// default bins and for others.
TEST(StatisticsTest, DensityBinsFromEdgesAreTheLogarithmsBins) {
  struct Bins {
    int64_t min_ns, max_ns;
    int per_decade;
  };
  for (const Bins& bins : {Bins{1'000, 1'000'000'000, 10}, Bins{1, 1'000'000'000'000, 7},
                           Bins{100, 1'000, 3}, Bins{10, 10, 10}}) {
    const DurationDensityBuilder builder(bins.min_ns, bins.max_ns, bins.per_decade);
    auto same = [&](int64_t d) {
      ASSERT_EQ(builder.BinOf(d), static_cast<size_t>(builder.BinByLogarithm(d)))
          << d << " in [" << bins.min_ns << ", " << bins.max_ns << ")";
    };
    const int64_t dense_end = std::min<int64_t>(bins.max_ns, 3'000'000);
    for (int64_t d = bins.min_ns; d < dense_end; ++d) same(d);
    std::mt19937_64 rng(7);
    for (int k = 0; k < 1'000'000 && bins.min_ns < bins.max_ns; ++k) {
      same(bins.min_ns +
           static_cast<int64_t>(rng() % static_cast<uint64_t>(bins.max_ns - bins.min_ns)));
    }
    // Both sides of every edge: where the logarithm's bin changes between
    // two samples 0.1 % apart (bins are wider), found exactly.
    int64_t previous = bins.min_ns;
    for (int64_t d = bins.min_ns + 1; d < bins.max_ns; d += std::max<int64_t>(1, d / 1000)) {
      if (builder.BinByLogarithm(d) != builder.BinByLogarithm(previous)) {
        int64_t below = previous;
        int64_t above = d;
        while (above - below > 1) {
          const int64_t middle = below + (above - below) / 2;
          if (builder.BinByLogarithm(middle) == builder.BinByLogarithm(previous)) {
            below = middle;
          } else {
            above = middle;
          }
        }
        same(below);
        same(above);
      }
      previous = d;
    }
  }
}

TEST(StatisticsTest, DensityPerDecadeIntegratesToTheFractionInside) {
  // 1 us, 10 us (bin 10), 10 us, 999 ms (last bin), 0.5 us (below), 2 s (above).
  std::vector<int64_t> ns = {1'000, 10'000, 10'000, 999'000'000, 500, 2'000'000'000};
  DurationDensity density = ComputeDurationDensity(ns);
  EXPECT_EQ(density.below_min, 1);
  EXPECT_EQ(density.above_max, 1);
  EXPECT_EQ(density.bins[0].count, 1);
  EXPECT_EQ(density.bins[10].count, 2);
  EXPECT_EQ(density.bins[59].count, 1);
  double integral = 0;
  for (const auto& bin : density.bins) integral += bin.density_per_decade * 0.1;
  EXPECT_NEAR(integral, 4.0 / 6.0, 1e-12);
  EXPECT_NEAR(density.bins[10].density_per_decade, 2.0 / 6.0 / 0.1, 1e-12);
}

}  // namespace
}  // namespace trainscope::analysis

namespace trainscope::analysis {
namespace {

TEST(StatisticsTest, QuantilesWithoutSortingMatchTheSortedDefinition) {
  std::vector<int64_t> values;
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 1001; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    values.push_back(static_cast<int64_t>(x % 100000));
  }
  std::vector<int64_t> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  std::vector<double> qs = {0.0, 0.5, 0.9, 0.99, 1.0};
  std::vector<int64_t> scratch = values;
  std::vector<double> got = Quantiles(scratch, qs);
  for (size_t i = 0; i < qs.size(); ++i)
    EXPECT_DOUBLE_EQ(got[i], QuantileSorted(sorted, qs[i])) << qs[i];
  std::vector<int64_t> four = {40, 10, 30, 20};
  EXPECT_EQ(Quantiles(four, {0.5, 0.9}), (std::vector<double>{25.0, 37.0}));
}

}  // namespace
}  // namespace trainscope::analysis
