// The timeline overview: the step aggregated into fixed columns once, in the
// analysis, so the timeline need not keep every kernel for the Gantt.
#include "analysis/timeline/step_timeline.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
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

// Zoom windows never draw a missing kernel as free time:
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

// A compute kernel of step 1 from |start_us| for |dur_us|.
void AddComputeKernel(model::RankProfile* profile, const std::string& name,
                      const std::string& op_type, int64_t start_us, int64_t dur_us) {
  model::DeviceEvent e;
  e.step = 1;
  e.name = profile->strings.Intern(name);
  e.op_type = profile->strings.Intern(op_type);
  e.kind = model::ActivityKind::kCompute;
  e.start_ns = start_us * 1000;
  e.duration_ns = dur_us * 1000;
  profile->device_events.Append(e);
}

// A gap's "before" is the kernel that ends last by the gap's start (a long
// one that started first, not the one that started last), its "after" the
// first kernel from the gap's end on that has a name for its op type.
TEST(StepTimelineTest, AGapIsBetweenTheKernelEndingLastAndTheFirstNamedOneAfter) {
  model::RankProfile profile;
  auto add = [&](const std::string& op_type, int64_t start_us, int64_t dur_us) {
    AddComputeKernel(&profile, op_type.empty() ? "unnamed" : op_type, op_type, start_us, dur_us);
  };
  add("Long", 0, 100);
  add("Short", 10, 10);
  add("", 150, 5);  // the first after the gap [100, 150), without an op type
  add("Next", 160, 10);
  profile.device_events.SortByStart();
  const StepTimeline timeline = ComputeStepTimeline(
      profile, 1, KernelFamilies(profile, FamilyRules::Builtin()), TimelineOptions{});
  ASSERT_FALSE(timeline.longest_gaps.empty());
  EXPECT_EQ(timeline.longest_gaps[0].start_ns, 100'000);
  EXPECT_EQ(timeline.longest_gaps[0].duration_ns, 50'000);
  EXPECT_EQ(timeline.longest_gaps[0].before, "Long");
  EXPECT_EQ(timeline.longest_gaps[0].after, "Next");
}

// The longest free gaps, longest first and ties by start, with the kernels
// on either side; gaps under min_gap_ns are not free time. The gaps are
// kept in a bounded heap, so this pins the order a sort of all would give.
TEST(StepTimelineTest, LongestGapsAreTheLongestFewInOrder) {
  model::RankProfile profile;
  int64_t t = 0;
  int index = 0;
  auto add = [&](int64_t dur_us, int64_t gap_after_us) {
    const std::string name = "K" + std::to_string(index++);
    AddComputeKernel(&profile, name, name, t, dur_us);
    t += dur_us + gap_after_us;
  };
  // Gaps after K0..K8 (us): 5 3 9 5 0 7 9 2 5 (K9 last); 0.5 us gaps do not count.
  for (int64_t gap : {5, 3, 9, 5, 0, 7, 9, 2, 5}) add(10, gap);
  add(10, 0);
  profile.device_events.SortByStart();
  const KernelFamilies families(profile, FamilyRules::Builtin());
  TimelineOptions options;
  options.longest_gaps = 4;
  const StepTimeline timeline = ComputeStepTimeline(profile, 1, families, options);
  ASSERT_EQ(timeline.longest_gaps.size(), 4u);
  const std::vector<std::pair<int64_t, std::string>> expected = {
      {9, "K2"}, {9, "K6"}, {7, "K5"}, {5, "K0"}};  // the 5 us gaps after K3 and K8 start later
  for (size_t k = 0; k < expected.size(); ++k) {
    EXPECT_EQ(timeline.longest_gaps[k].duration_ns, expected[k].first * 1000) << k;
    EXPECT_EQ(timeline.longest_gaps[k].before, expected[k].second) << k;
  }
  EXPECT_EQ(timeline.longest_gaps[0].after, "K3");
  EXPECT_EQ(timeline.longest_gaps[0].start_ns, (10 + 5 + 10 + 3 + 10) * 1000);
  options.longest_gaps = 0;
  EXPECT_TRUE(ComputeStepTimeline(profile, 1, families, options).longest_gaps.empty());
  options.longest_gaps = 50;  // more asked than there are: all 8, still in order
  const StepTimeline all = ComputeStepTimeline(profile, 1, families, options);
  ASSERT_EQ(all.longest_gaps.size(), 8u);
  EXPECT_EQ(all.longest_gaps.back().duration_ns, 2000);
}

}  // namespace
}  // namespace trainscope::analysis

namespace trainscope::analysis {
namespace {

// The interactive timeline's track: every kernel of the step, tagged with
// the motif instance it belongs to, and capped to the longest.
class TimelineTrackTest : public ::testing::Test {
 protected:
  void Add(const char* name, model::ActivityKind kind, int32_t stream, int64_t start_us,
           int64_t dur_us) {
    model::DeviceEvent e;
    e.step = 1;
    e.name = profile_.strings.Intern(name);
    e.op_type = e.name;
    e.kind = kind;
    e.stream = stream;
    e.start_ns = start_us * 1000;
    e.duration_ns = dur_us * 1000;
    profile_.device_events.Append(e);
  }
  void SetUp() override {
    // Three A-B instances on stream 7, 20 us apart (A 5 us, B 3 us), an
    // A on stream 8 at the same time as the second instance, a collective
    // and a copy: 9 kernels.
    for (int64_t i = 0; i < 3; ++i) {
      Add("A", model::ActivityKind::kCompute, 7, i * 20, 5);
      Add("B", model::ActivityKind::kCompute, 7, i * 20 + 6, 3);
    }
    Add("A", model::ActivityKind::kCompute, 8, 20, 4);
    Add("allreduce", model::ActivityKind::kCommunication, 9, 2, 30);
    Add("memcpy", model::ActivityKind::kMemcpy, 10, 50, 1);
    profile_.device_events.SortByStart();
  }
  model::RankProfile profile_;
};

TEST_F(TimelineTrackTest, KeepsEveryKernelOnlyWhenAsked) {
  const KernelFamilies families(profile_, FamilyRules::Builtin());
  TimelineOptions options;
  EXPECT_TRUE(ComputeStepTimeline(profile_, 1, families, options).track.kernels.empty());
  options.kernels = true;
  const StepTimeline t = ComputeStepTimeline(profile_, 1, families, options);
  EXPECT_EQ(t.kernel_count, 9);
  ASSERT_EQ(t.track.kernels.size(), 9u);
  // Start order, relative to the first kernel; lanes by kind.
  for (size_t k = 1; k < t.track.kernels.size(); ++k)
    EXPECT_LE(t.track.kernels[k - 1].start_ns, t.track.kernels[k].start_ns);
  int comm = 0, other = 0;
  for (const TimelineKernel& k : t.track.kernels) {
    comm += k.lane == Lane::kComm ? 1 : 0;
    other += k.lane == Lane::kOther ? 1 : 0;
  }
  EXPECT_EQ(comm, 1);
  EXPECT_EQ(other, 1);
  EXPECT_EQ(t.Str(t.track.kernels.back().name), "memcpy");
  EXPECT_EQ(t.track.kernels.back().start_ns, 50'000);
  options.picture = false;  // no picture, no track
  EXPECT_TRUE(ComputeStepTimeline(profile_, 1, families, options).track.kernels.empty());
}

TEST_F(TimelineTrackTest, TagsMotifInstancesOnTheirStream) {
  const KernelFamilies families(profile_, FamilyRules::Builtin());
  TimelineOptions options;
  options.kernels = true;
  StepTimeline t = ComputeStepTimeline(profile_, 1, families, options);
  Motif mined;
  mined.kernels = {"A", "B"};
  mined.stream = 7;
  mined.instance_starts_ns = {0, 20'000, 40'000, 33'000 /* no kernel starts there */};
  Motif on_other_stream = mined;
  on_other_stream.kernels = {"A"};
  on_other_stream.stream = 8;
  on_other_stream.instance_starts_ns = {20'000};
  on_other_stream.fingerprint = "fp";
  AddTrackInstances(profile_, {mined, on_other_stream}, 1'000, &t);
  // Fingerprints are tagged last, but the motifs keep their indices.
  ASSERT_EQ(t.track.instances.size(), 4u);
  EXPECT_EQ(t.track.instances[0].motif, 0);
  EXPECT_EQ(t.track.instances[0].start_ns, 0);
  EXPECT_EQ(t.track.instances[0].end_ns, 9'000);  // B ends at 6 + 3 us
  EXPECT_EQ(t.track.instances[2].start_ns, 40'000);
  EXPECT_EQ(t.track.instances[2].end_ns, 49'000);
  EXPECT_EQ(t.track.instances[3].motif, 1);
  EXPECT_EQ(t.track.instances[3].end_ns, 24'000);
  ASSERT_EQ(t.track.instance.size(), 9u);
  int tagged = 0;
  for (size_t k = 0; k < 9; ++k) {
    const TimelineKernel& kernel = t.track.kernels[k];
    const int32_t id = t.track.instance[k];
    if (t.Str(kernel.name) == "allreduce" || t.Str(kernel.name) == "memcpy") {
      EXPECT_EQ(id, -1);
    }
    if (id < 0) continue;
    ++tagged;
    const TrackInstance& instance = t.track.instances[static_cast<size_t>(id)];
    EXPECT_GE(kernel.start_ns, instance.start_ns);
    EXPECT_LE(kernel.start_ns + kernel.duration_ns, instance.end_ns);
  }
  EXPECT_EQ(tagged, 7);  // 3 x (A, B) on stream 7 and the A on stream 8
}

TEST_F(TimelineTrackTest, CapKeepsTheLongestInStartOrder) {
  const KernelFamilies families(profile_, FamilyRules::Builtin());
  TimelineOptions options;
  options.kernels = true;
  StepTimeline t = ComputeStepTimeline(profile_, 1, families, options);
  AddTrackInstances(profile_, {}, 3, &t);
  ASSERT_EQ(t.track.kernels.size(), 3u);
  EXPECT_EQ(t.track.dropped, 6);
  EXPECT_EQ(t.track.instance, (std::vector<int32_t>{-1, -1, -1}));
  // allreduce 30 us, the first A 5 us (ties of 5 us: the earliest), the A at 20 us (5 us).
  EXPECT_EQ(t.Str(t.track.kernels[0].name), "A");
  EXPECT_EQ(t.track.kernels[0].start_ns, 0);
  EXPECT_EQ(t.Str(t.track.kernels[1].name), "allreduce");
  EXPECT_EQ(t.track.kernels[2].start_ns, 20'000);
  EXPECT_EQ(t.track.kernels[2].duration_ns, 5'000);
}

}  // namespace
}  // namespace trainscope::analysis

namespace trainscope::analysis {
namespace {

// The host-launch lane: each kernel with a launch link brings its launch
// call, by start (one may start before the step), and the cap keeps the
// launches of the kernels it keeps.
TEST(TimelineTrackLaunchTest, LaunchesByStartAndCapped) {
  model::RankProfile p;
  p.timeline.present = true;
  auto host = [&](int64_t start_ns, int64_t end_ns) {
    model::HostOp op;
    op.name = p.strings.Intern("cudaLaunchKernel");
    op.start_ns = start_ns;
    op.duration_ns = end_ns - start_ns;
    p.timeline.host_ops.Append(op);
    return static_cast<int32_t>(p.timeline.host_ops.size() - 1);
  };
  const int32_t late_launch = host(9'000, 9'500);
  const int32_t early_launch = host(-2'000, -1'000);  // before the step's first kernel
  auto kernel = [&](int64_t start_ns, int64_t dur_ns, int32_t launcher) {
    model::DeviceEvent e;
    e.step = 1;
    e.name = p.strings.Intern("k");
    e.op_type = e.name;
    e.start_ns = start_ns;
    e.duration_ns = dur_ns;
    e.launcher = launcher;
    p.device_events.Append(e);
  };
  kernel(0, 100, early_launch);
  kernel(5'000, 50, model::kNoIndex);
  kernel(10'000, 300, late_launch);
  p.device_events.SortByStart();
  const KernelFamilies families(p, FamilyRules::Builtin());
  TimelineOptions options;
  options.kernels = true;
  StepTimeline t = ComputeStepTimeline(p, 1, families, options);
  ASSERT_EQ(t.track.launches.size(), 2u);
  EXPECT_EQ(t.track.launches[0].kernel, 0u);
  EXPECT_EQ(t.track.launches[0].start_ns, -2'000);
  EXPECT_EQ(t.track.launches[0].duration_ns, 1'000);
  EXPECT_EQ(t.track.launches[1].kernel, 2u);
  EXPECT_EQ(t.track.launches[1].start_ns, 9'000);
  AddTrackInstances(p, {}, 1, &t);  // keeps the 300 ns kernel only
  ASSERT_EQ(t.track.kernels.size(), 1u);
  ASSERT_EQ(t.track.launches.size(), 1u);
  EXPECT_EQ(t.track.launches[0].kernel, 0u);
  EXPECT_EQ(t.track.launches[0].start_ns, 9'000);
}

}  // namespace
}  // namespace trainscope::analysis
