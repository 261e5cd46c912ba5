// Chart axes (report/svg.h TimeAxisTicks, report/cluster_charts.h): round
// 1-2-5 ticks in one unit per axis, labels that fit the chart.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/cluster/cluster.h"
#include "report/cluster_charts.h"
#include "report/svg.h"

namespace trainscope::report {
namespace {

TEST(ChartAxisTest, ZeroTo106MsGivesTwentyMsSteps) {
  const TimeTicks ticks = TimeAxisTicks(0, 106'435, 6);
  EXPECT_EQ(ticks.unit, "ms");
  EXPECT_DOUBLE_EQ(ticks.step_us, 20'000);
  EXPECT_EQ(ticks.values_us, (std::vector<double>{0, 20'000, 40'000, 60'000, 80'000, 100'000}));
  EXPECT_EQ(ticks.labels,
            (std::vector<std::string>{"0 ms", "20 ms", "40 ms", "60 ms", "80 ms", "100 ms"}));
}

// A narrow range far from zero: a step of 20 µs would give 7 ticks
// (499.98 ... 500.10), so 50 µs; two decimals tell the ticks apart.
TEST(ChartAxisTest, NarrowRangeNear500Ms) {
  const TimeTicks ticks = TimeAxisTicks(499'967, 500'100, 6);
  EXPECT_EQ(ticks.unit, "ms");
  EXPECT_DOUBLE_EQ(ticks.step_us, 50);
  EXPECT_EQ(ticks.labels, (std::vector<std::string>{"500.00 ms", "500.05 ms", "500.10 ms"}));
  // With room for 7 ticks: 20 µs steps from 499.98.
  const TimeTicks seven = TimeAxisTicks(499'967, 500'100, 7);
  EXPECT_DOUBLE_EQ(seven.step_us, 20);
  EXPECT_EQ(seven.labels.front(), "499.98 ms");
  EXPECT_EQ(seven.labels.back(), "500.10 ms");
  EXPECT_EQ(seven.labels.size(), 7u);
}

TEST(ChartAxisTest, TheUnitFollowsTheLargestValue) {
  const TimeTicks us = TimeAxisTicks(0, 900, 6);
  EXPECT_EQ(us.labels, (std::vector<std::string>{"0 µs", "200 µs", "400 µs", "600 µs", "800 µs"}));
  const TimeTicks s = TimeAxisTicks(0, 2'500'000, 6);
  EXPECT_EQ(s.labels,
            (std::vector<std::string>{"0.0 s", "0.5 s", "1.0 s", "1.5 s", "2.0 s", "2.5 s"}));
  const TimeTicks ns = TimeAxisTicks(0, 0.8, 6);
  EXPECT_EQ(ns.labels, (std::vector<std::string>{"0 ns", "200 ns", "400 ns", "600 ns", "800 ns"}));
}

TEST(ChartAxisTest, AnEmptyRangeHasOneTick) {
  const TimeTicks ticks = TimeAxisTicks(5'000, 5'000, 6);
  EXPECT_EQ(ticks.labels, (std::vector<std::string>{"5 ms"}));
}

TEST(ChartAxisTest, TextWidthCountsCharactersNotBytes) {
  EXPECT_DOUBLE_EQ(TextWidth("0 µs", 10), TextWidth("0 us", 10));
  EXPECT_GT(TextWidth("100 ms", 10), TextWidth("0 ms", 10));
}

// The cross-rank scatter of the report: round ms ticks on both axes, no
// "0 µs" beside ms values, no label cut at the right edge.
TEST(ChartAxisTest, RankScatterTicksAreRoundAndInOneUnit) {
  analysis::ClusterAnalysis cluster;
  cluster.step = 5;
  for (int32_t r = 0; r < 4; ++r) {
    analysis::RankClusterStats stats;
    stats.rank = r;
    stats.step = 5;
    stats.has_device_step = true;
    stats.step_start_offset_ns = r == 3 ? 106'435'000 : r * 1'000'000;
    stats.step_time_ns = r == 0 ? 499'967'000 : 500'100'000;
    cluster.per_rank.push_back(stats);
  }
  const std::string svg = std::string(RankScatterSvg(cluster).markup());
  EXPECT_NE(svg.find(">100 ms</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">0 ms</text>"), std::string::npos);
  EXPECT_EQ(svg.find("µs"), std::string::npos) << "a µs label on a ms axis";
  EXPECT_EQ(svg.find(">106"), std::string::npos);
  EXPECT_EQ(svg.find(">499.9"), std::string::npos);
  // The y axis (step time, padded by 10% of the spread: 499.954 ... 500.113
  // ms): 500.00, 500.05, 500.10 ms.
  EXPECT_NE(svg.find(">500.05 ms</text>"), std::string::npos);
}

}  // namespace
}  // namespace trainscope::report
