#include "analysis/common/statistics.h"

#include <gtest/gtest.h>

#include <algorithm>

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
