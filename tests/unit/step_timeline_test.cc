// The timeline overview: the step aggregated into fixed columns once, in the
// analysis, so the timeline need not keep every kernel for the Gantt.
#include "analysis/timeline/step_timeline.h"

#include <gtest/gtest.h>

#include <vector>

namespace trainscope::analysis {
namespace {

TimelineKernel Kernel(int64_t start_us, int64_t duration_us, Lane lane, uint32_t family) {
  return TimelineKernel{start_us * 1000, duration_us * 1000, lane, 0, 0, family};
}

TEST(StepTimelineTest, OverviewRunsFollowTheDominantFamilyAndFreeColumns) {
  // 10 columns of 10 us over [0, 100).
  const std::vector<TimelineKernel> kernels = {
      Kernel(0, 45, Lane::kCompute, 3),  // columns 0-4
      Kernel(41, 8, Lane::kCompute, 4),  // column 4, more time there than family 3 (4 us)
      Kernel(52, 6, Lane::kComm, 5),     // column 5
  };
  const TimelineOverview overview = AggregateColumns(kernels, 0, 100'000, 10);
  EXPECT_EQ(overview.columns, 10);
  EXPECT_DOUBLE_EQ(overview.ns_per_column, 10'000);
  const auto& compute = overview.lanes[static_cast<size_t>(Lane::kCompute)];
  ASSERT_EQ(compute.size(), 2u);
  EXPECT_EQ(compute[0].first_column, 0);
  EXPECT_EQ(compute[0].end_column, 4);
  EXPECT_EQ(compute[0].family, 3u);
  EXPECT_DOUBLE_EQ(compute[0].time_ns, 40'000);
  EXPECT_EQ(compute[0].kernels, 4);
  // Column 4: family 4 dominates; the run counts both families' time there.
  EXPECT_EQ(compute[1].first_column, 4);
  EXPECT_EQ(compute[1].end_column, 5);
  EXPECT_EQ(compute[1].family, 4u);
  EXPECT_DOUBLE_EQ(compute[1].time_ns, (5 + 8) * 1000);
  EXPECT_EQ(compute[1].kernels, 2);
  const auto& comm = overview.lanes[static_cast<size_t>(Lane::kComm)];
  ASSERT_EQ(comm.size(), 1u);
  EXPECT_EQ(comm[0].first_column, 5);
  EXPECT_EQ(comm[0].end_column, 6);
  EXPECT_DOUBLE_EQ(comm[0].time_ns, 6'000);
  EXPECT_TRUE(overview.lanes[static_cast<size_t>(Lane::kOther)].empty());
  // Column 5 is 60% busy, columns 6-9 idle.
  ASSERT_EQ(overview.free.size(), 1u);
  EXPECT_EQ(overview.free[0].first_column, 6);
  EXPECT_EQ(overview.free[0].end_column, 10);
}

TEST(StepTimelineTest, OverviewOfNoKernelsIsAllFree) {
  const TimelineOverview overview = AggregateColumns({}, 0, 50, 5);
  for (const auto& lane : overview.lanes) EXPECT_TRUE(lane.empty());
  ASSERT_EQ(overview.free.size(), 1u);
  EXPECT_EQ(overview.free[0].first_column, 0);
  EXPECT_EQ(overview.free[0].end_column, 5);
}

}  // namespace
}  // namespace trainscope::analysis
