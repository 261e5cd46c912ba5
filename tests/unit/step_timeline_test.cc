// The timeline overview: the step aggregated into fixed columns once, in the
// analysis, so the timeline need not keep every kernel for the Gantt.
#include "analysis/timeline/step_timeline.h"

#include <gtest/gtest.h>

#include <vector>

#include "analysis/common/family_rules.h"

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

// Zoom windows never draw a missing kernel as free time (issue 12 item 12):
// a kernel running into the window from before it is in it, and past the
// cap the window is narrowed to the kernels kept.
TEST(StepTimelineTest, ZoomKeepsKernelsRunningIntoItAndNarrowsInsteadOfCutting) {
  model::RankProfile profile;
  auto add = [&](int64_t start_us, int64_t dur_us) {
    model::DeviceEvent e;
    e.step = 1;
    e.name = profile.strings.Intern("MatMul");
    e.op_type = e.name;
    e.kind = model::ActivityKind::kCompute;
    e.start_ns = start_us * 1000;
    e.duration_ns = dur_us * 1000;
    profile.device_events.Append(e);
  };
  add(0, 500);  // one long kernel, then 100 short ones from 500 us
  for (int i = 0; i < 100; ++i) add(500 + i * 2, 2);
  profile.device_events.SortByStart();
  const KernelFamilies families(profile, FamilyRules::Builtin());
  TimelineOptions options;
  options.zoom_widths_ns = {600'000};  // 600 us of the 700 us step
  options.max_kernels_per_zoom = 30;
  const StepTimeline t = ComputeStepTimeline(profile, 1, families, options);
  ASSERT_EQ(t.zooms.size(), 1u);
  const ZoomWindow& zoom = t.zooms[0];
  ASSERT_EQ(zoom.kernels.size(), 30u);
  EXPECT_EQ(zoom.kernel_count, 30);
  EXPECT_DOUBLE_EQ(zoom.requested_width_ns, 600'000);
  // The window ends where the first kernel not kept starts.
  const TimelineKernel& last = zoom.kernels.back();
  EXPECT_DOUBLE_EQ(zoom.start_ns + zoom.width_ns, static_cast<double>(last.start_ns + 2'000));
  // Whatever start was chosen, a kernel overlapping the window's left edge is in it.
  for (const TimelineKernel& k : zoom.kernels) {
    EXPECT_GT(static_cast<double>(k.start_ns + k.duration_ns), zoom.start_ns);
    EXPECT_LT(static_cast<double>(k.start_ns), zoom.start_ns + zoom.width_ns);
  }
}

}  // namespace
}  // namespace trainscope::analysis
