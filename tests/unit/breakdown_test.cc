#include "analysis/breakdown.h"

#include <gtest/gtest.h>

#include "analysis/breakdown_intervals.h"
#include "analysis/idle_time.h"
#include "analysis/launch_stats.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {
namespace {

TEST(BreakdownIntervals, UnionMergesOverlapsAndTouching) {
  std::vector<Interval> u = UnionOf({{5, 10}, {0, 3}, {3, 4}, {8, 12}, {20, 20}});
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[0].start, 0);
  EXPECT_EQ(u[0].end, 4);
  EXPECT_EQ(u[1].end, 12);
  EXPECT_EQ(TotalLength(u), 11);
}

TEST(BreakdownIntervals, LengthMinus) {
  std::vector<Interval> a = UnionOf({{0, 10}, {20, 30}});
  std::vector<Interval> b = UnionOf({{2, 4}, {8, 22}, {25, 26}});
  EXPECT_EQ(LengthMinus(a, b), 2 + 4 + 3 + 4);  // [0,2) [4,8) [22,25) [26,30)
  EXPECT_EQ(LengthMinus(a, {}), 20);
  EXPECT_EQ(LengthMinus({}, b), 0);
  EXPECT_EQ(LengthMinus(a, UnionOf({{-5, 40}})), 0);
}

model::RankProfile Profile() {
  model::RankProfile p;
  model::Timeline& tl = p.timeline;
  tl.present = true;
  auto add = [&](int64_t start, int64_t dur, model::ActivityKind kind, int32_t launcher,
                 int32_t step) {
    model::DeviceActivity a;
    a.start_ns = start;
    a.duration_ns = dur;
    a.kind = kind;
    a.launcher = launcher;
    a.step = step;
    a.stream = 7;
    a.name = p.strings.Intern("k");
    tl.activities.Append(a);
  };
  model::HostOp launch;
  launch.start_ns = 0;
  launch.duration_ns = 5;
  tl.host_ops.Append(launch);
  launch.start_ns = 60;
  tl.host_ops.Append(launch);
  add(10, 20, model::ActivityKind::kCompute, 0, 1);        // [10,30)
  add(20, 30, model::ActivityKind::kCommunication, 0, 1);  // [20,50)
  add(55, 5, model::ActivityKind::kMemcpy, -1, 1);         // [55,60) unlinked
  add(70, 10, model::ActivityKind::kCompute, 1, 2);        // [70,80)
  add(0, 100, model::ActivityKind::kOther, -1, 1);         // ignored
  tl.steps = {{1, 0, 60, -1}, {2, 60, 100, -1}};
  tl.step_source = model::StepSource::kProfilerStep;
  return p;
}

TEST(Breakdown, WholeTraceAndSteps) {
  model::RankProfile p = Profile();
  Breakdown b = ComputeBreakdown(p, {});
  ASSERT_EQ(b.rows.size(), 3u);
  const TimeBudget& t = b.rows[0].budget;
  EXPECT_EQ(t.total_ns, 70);
  EXPECT_EQ(t.busy_ns, 55);
  EXPECT_EQ(t.computation_ns, 30);
  EXPECT_EQ(t.communication_ns, 30);
  EXPECT_EQ(t.exposed_communication_ns, 20);
  EXPECT_EQ(t.memcpy_ns, 5);
  EXPECT_EQ(t.exposed_memcpy_ns, 5);
  EXPECT_EQ(t.idle_ns, 15);
  EXPECT_EQ(b.rows[1].step, 1);
  EXPECT_EQ(b.rows[1].budget.total_ns, 50);
  EXPECT_EQ(b.rows[2].budget.total_ns, 10);
  EXPECT_NE(b.scope.find("all device activities"), std::string::npos);
}

TEST(Breakdown, LinkedOnlyDropsUnlinked) {
  model::RankProfile p = Profile();
  BreakdownOptions o;
  o.linked_only = true;
  Breakdown b = ComputeBreakdown(p, o);
  EXPECT_EQ(b.rows[0].budget.memcpy_ns, 0);
  EXPECT_EQ(b.rows[0].budget.activities, 3);
  EXPECT_NE(b.scope.find("linked-only"), std::string::npos);
}

TEST(Breakdown, RuleTableReclassifies) {
  model::RankProfile p = Profile();
  std::vector<model::ClassRule> rules = {
      {model::ClassRule::Match::kPrefix, "k", model::ActivityKind::kCommunication}};
  BreakdownOptions o;
  o.rules = &rules;
  TimeBudget t = ComputeBreakdown(p, o).rows[0].budget;
  EXPECT_EQ(t.computation_ns, 0);
}

TEST(Breakdown, DefaultRulesClassifyLlmCollectives) {
  const auto& r = model::DefaultClassRules();
  using model::ActivityKind;
  EXPECT_EQ(
      model::ClassifyActivity("void dpsk::ep::internode::dispatch<8>(int)", "kernel", false, r),
      ActivityKind::kCommunication);
  EXPECT_EQ(model::ClassifyActivity("ncclDevKernel_AllGather_RING_LL(x)", "kernel", false, r),
            ActivityKind::kCommunication);
  EXPECT_EQ(model::ClassifyActivity("void multimem_all_reduce_kernel<1>()", "kernel", false, r),
            ActivityKind::kCommunication);
  EXPECT_EQ(model::ClassifyActivity("void cross_device_reduce_1stage<half>()", "kernel", false, r),
            ActivityKind::kCommunication);
  EXPECT_EQ(model::ClassifyActivity("sm90_gemm", "kernel", true, r), ActivityKind::kCommunication);
  EXPECT_EQ(model::ClassifyActivity("sm90_gemm", "kernel", false, r), ActivityKind::kCompute);
  EXPECT_EQ(model::ClassifyActivity("Memset (Device)", "gpu_memset", false, r),
            ActivityKind::kMemset);
  EXPECT_EQ(model::ShortKernelName("void (anonymous namespace)::f<int>(int)"),
            "(anonymous namespace)::f");
}

TEST(Breakdown, LaunchStatsAndIdleTime) {
  model::RankProfile p = Profile();
  LaunchStats s = ComputeLaunchStats(p.timeline, {});
  EXPECT_EQ(s.launches, 3);
  EXPECT_EQ(s.delay_ns[0], 5);  // 10 - (0 + 5)
  std::vector<StreamIdle> idle = ComputeIdleTime(p.timeline);
  ASSERT_EQ(idle.size(), 1u);
  // Gaps: [50,55) kernel-wait (unlinked, < 30 µs); [60,70) host-wait (launch at 60 >= prev end 60?
  // no: 60 > 60 false) -> kernel-wait.
  EXPECT_EQ(idle[0].kernel_wait_ns + idle[0].host_wait_ns + idle[0].other_ns, 15);
}

}  // namespace
}  // namespace trainscope::analysis
