#include "analysis/common/visited_quantiles.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

#include "analysis/common/statistics.h"

namespace trainscope::analysis {
namespace {

// The radix selection itself (QuantilesOfVisited copies a few values).
std::vector<double> VisitedQuantiles(const std::vector<double>& values,
                                     const std::vector<double>& qs) {
  return QuantilesByRadix(
      [&values](auto&& visit) {
        for (const double v : values) visit(v);
      },
      values.size(), qs);
}

std::vector<double> CopiedQuantiles(std::vector<double> values, const std::vector<double>& qs) {
  return Quantiles(values, qs);
}

TEST(VisitedQuantiles, TheOrderKeysSortAsTheDoublesDo) {
  const std::vector<double> ascending = {-std::numeric_limits<double>::max(),
                                         -1e300,
                                         -2.5,
                                         -std::numeric_limits<double>::denorm_min(),
                                         0.0,
                                         std::numeric_limits<double>::denorm_min(),
                                         1e-300,
                                         1.0,
                                         1.0000000000000002,
                                         std::numeric_limits<double>::max()};
  for (size_t i = 0; i < ascending.size(); ++i) {
    EXPECT_EQ(std::bit_cast<uint64_t>(FromOrderKey(OrderKey(ascending[i]))),
              std::bit_cast<uint64_t>(ascending[i]));
    if (i > 0) {
      EXPECT_LT(OrderKey(ascending[i - 1]), OrderKey(ascending[i])) << i;
    }
  }
  EXPECT_EQ(OrderKey(-0.0), OrderKey(0.0));  // equal under <, as Quantiles compares
}

TEST(VisitedQuantiles, AreTheQuantilesOfACopyBitForBit) {
  uint64_t state = 99;
  auto next = [&state]() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 11;
  };
  const std::vector<std::vector<double>> qs_sets = {
      {0.5}, {0.5, 0.9}, {0.0, 0.25, 0.5, 0.75, 1.0}, {0.1, 0.1, 0.999}};
  size_t compared = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const size_t n = trial < 380 ? 1 + next() % 300 : 20'000 + next() % 50'000;
    std::vector<double> values;
    for (size_t i = 0; i < n; ++i) {
      switch (trial % 5) {
        case 0:  // few distinct values: duplicates at every quantile
          values.push_back(static_cast<double>(next() % 7) - 3);
          break;
        case 1:  // step times: near one value, one decimal
          values.push_back(1000 + static_cast<double>(next() % 500) / 10);
          break;
        case 2:  // any magnitude and sign
          values.push_back((next() % 2 == 0 ? -1.0 : 1.0) *
                           std::ldexp(static_cast<double>(next() % 1000 + 1),
                                      static_cast<int>(next() % 200) - 100));
          break;
        case 3:  // values that share their high bits and differ in the last ones
          values.push_back(std::bit_cast<double>(std::bit_cast<uint64_t>(1.5) + next() % 64));
          break;
        default:  // one value
          values.push_back(42.125);
      }
    }
    for (const std::vector<double>& qs : qs_sets) {
      const std::vector<double> expected = CopiedQuantiles(values, qs);
      const std::vector<double> got = VisitedQuantiles(values, qs);
      ASSERT_EQ(got.size(), expected.size());
      for (size_t k = 0; k < got.size(); ++k) {
        EXPECT_EQ(std::bit_cast<uint64_t>(got[k]), std::bit_cast<uint64_t>(expected[k]))
            << "trial " << trial << " q " << qs[k] << ": " << got[k] << " vs " << expected[k];
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 400u * 11u);
}

TEST(VisitedQuantiles, NoValuesGiveZerosAndOneValueGivesItself) {
  EXPECT_EQ(VisitedQuantiles({}, {0.5, 0.9}), (std::vector<double>{0.0, 0.0}));
  EXPECT_EQ(VisitedQuantiles({-7.5}, {0.0, 0.5, 1.0}), (std::vector<double>{-7.5, -7.5, -7.5}));
}

TEST(VisitedQuantiles, ReadTheValuesFourTimes) {
  const std::vector<double> values = {3, 1, 2, 5, 4};
  int passes = 0;
  const std::vector<double> got = QuantilesByRadix(
      [&](auto&& visit) {
        ++passes;
        for (const double v : values) visit(v);
      },
      values.size(), {0.5, 0.9});
  EXPECT_EQ(got, (std::vector<double>{3.0, 4.6}));
  EXPECT_EQ(passes, 4);  // 16 bits of the 64-bit order a pass, both quantiles in each
}

// A few values are copied (read once), many read by the radix passes (four
// times); the answers are Quantiles' either way.
TEST(VisitedQuantiles, CopyAFewValuesAndVisitMany) {
  for (const size_t n : {size_t{5}, kCopyUpTo, kCopyUpTo + 1}) {
    std::vector<double> values(n);
    for (size_t i = 0; i < n; ++i) values[i] = static_cast<double>((i * 7919) % 1000) / 8;
    int passes = 0;
    const std::vector<double> got = QuantilesOfVisited(
        [&](auto&& visit) {
          ++passes;
          for (const double v : values) visit(v);
        },
        n, {0.5, 0.9, 0.99});
    EXPECT_EQ(got, CopiedQuantiles(values, {0.5, 0.9, 0.99})) << n;
    EXPECT_EQ(passes, n <= kCopyUpTo ? 1 : 4) << n;
  }
}

}  // namespace
}  // namespace trainscope::analysis
