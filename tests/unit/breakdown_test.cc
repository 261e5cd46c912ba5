#include "analysis/step/breakdown.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "analysis/common/breakdown_intervals.h"
#include "analysis/step/step_budget.h"
#include "model/kernel_names.h"
#include "model/rank_profile.h"
#include "model/timeline_classify.h"

namespace trainscope::analysis {
namespace {

TEST(BreakdownIntervals, UnionMergesOverlapsAndTouching) {
  std::vector<Interval> u = UnionOf({{5, 10}, {0, 3}, {3, 4}, {8, 12}, {20, 20}});
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[0].start, 0);
  EXPECT_EQ(u[0].end, 4);
  EXPECT_EQ(u[1].end, 12);
}

// A brute-force union: every covered ns of a small range marked.
std::vector<Interval> UnionByCells(const std::vector<Interval>& intervals) {
  std::vector<bool> covered(200, false);
  for (const Interval& iv : intervals) {
    for (int64_t t = iv.start; t < iv.end; ++t) covered[static_cast<size_t>(t)] = true;
  }
  std::vector<Interval> out;
  for (int64_t t = 0; t < 200; ++t) {
    if (!covered[static_cast<size_t>(t)]) continue;
    if (!out.empty() && out.back().end == t) {
      out.back().end = t + 1;
    } else {
      out.push_back({t, t + 1});
    }
  }
  return out;
}

// UnionOf (in place) equals the brute-force union, on sorted, nearly sorted
// and shuffled inputs with empty and nested ones.
TEST(BreakdownIntervals, UnionOfEqualsABruteForceUnion) {
  std::mt19937 random(11);
  for (int round = 0; round < 300; ++round) {
    std::vector<Interval> intervals(static_cast<size_t>(random() % 40));
    for (Interval& iv : intervals) {
      iv.start = static_cast<int64_t>(random() % 180);
      iv.end = iv.start + static_cast<int64_t>(random() % 15) - 2;  // some empty or reversed
    }
    if (round % 3 != 2) {
      std::sort(intervals.begin(), intervals.end(),
                [](const Interval& a, const Interval& b) { return a.start < b.start; });
      if (round % 3 == 1 && intervals.size() > 4) std::swap(intervals[1], intervals[3]);
    }
    const std::vector<Interval> expected = UnionByCells(intervals);
    const std::vector<Interval> sorted = UnionOf(intervals);
    ASSERT_EQ(sorted.size(), expected.size()) << "round " << round;
    for (size_t k = 0; k < expected.size(); ++k) {
      EXPECT_EQ(sorted[k].start, expected[k].start) << "round " << round;
      EXPECT_EQ(sorted[k].end, expected[k].end) << "round " << round;
    }
  }
}

model::RankProfile Profile() {
  model::RankProfile p;
  model::Timeline& tl = p.timeline;
  tl.present = true;
  auto add = [&](int64_t start, int64_t dur, model::ActivityKind kind, int32_t launcher,
                 int32_t step) {
    model::DeviceEvent a;
    a.start_ns = start;
    a.duration_ns = dur;
    a.kind = kind;
    a.launcher = launcher;
    a.step = step;
    a.stream = 7;
    a.name = p.strings.Intern("k");
    p.device_events.Append(a);
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
  tl.steps = {{1, 0, 60, -1}, {2, 60, 100, -1}};
  tl.step_source = model::StepSource::kProfilerStep;
  p.device_events_source = model::DeviceEventsSource::kTrace;
  return p;
}

// The product's budget (ComputeStepBudget, what `analyze` reports per step).
TEST(Breakdown, WholeTraceAndSteps) {
  model::RankProfile p = Profile();
  auto whole = ComputeStepBudget(p, model::kNoStep);
  ASSERT_TRUE(whole.has_value());
  EXPECT_EQ(whole->source, "trace");
  const TimeBudget& t = whole->budget;
  EXPECT_EQ(t.total_ns, 70);
  EXPECT_EQ(t.busy_ns, 55);
  EXPECT_EQ(t.computation_ns, 30);
  EXPECT_EQ(t.communication_ns, 30);
  EXPECT_EQ(t.exposed_communication_ns, 20);
  EXPECT_EQ(t.memcpy_ns, 5);
  EXPECT_EQ(t.exposed_memcpy_ns, 5);
  EXPECT_EQ(t.idle_ns, 15);
  EXPECT_NE(whole->scope.find("all device activities"), std::string::npos);
  auto step1 = ComputeStepBudget(p, 1);
  auto step2 = ComputeStepBudget(p, 2);
  ASSERT_TRUE(step1.has_value() && step2.has_value());
  EXPECT_EQ(step1->budget.total_ns, 50);
  // Step 2 is the last iteration: it runs to its host step's end (100),
  // past its last kernel (80): the device waited for the host there.
  EXPECT_EQ(step2->budget.total_ns, 40);
  EXPECT_EQ(step2->budget.idle_ns, 30);
}

// HTA / TraceLens count only activities with a launching host op; the
// parity tests (tests/corpus) pass that member set to the product's BudgetOfRows.
TEST(Breakdown, LinkedOnlyMembersDropUnlinked) {
  model::RankProfile p = Profile();
  const auto& acts = p.device_events;
  std::vector<uint32_t> linked;
  for (size_t i = 0; i < acts.size(); ++i) {
    if (acts.launcher[i] != model::kNoIndex) linked.push_back(static_cast<uint32_t>(i));
  }
  TimeBudget t = BudgetOfRows(acts.start_ns, acts.duration_ns, acts.kind, linked);
  EXPECT_EQ(t.memcpy_ns, 0);
  EXPECT_EQ(t.activities, 3);
}

TEST(Breakdown, BudgetFollowsTheKindsGiven) {
  model::RankProfile p = Profile();
  const auto& acts = p.device_events;
  std::vector<model::ClassRule> rules = {
      {model::ClassRule::Match::kPrefix, "k", model::ActivityKind::kCommunication}};
  std::vector<model::ActivityKind> kinds(acts.kind);
  std::vector<uint32_t> all;
  for (size_t i = 0; i < acts.size(); ++i) {
    all.push_back(static_cast<uint32_t>(i));
    kinds[i] = model::ClassifyActivity(p.strings.Get(acts.name[i]), "kernel", false, rules);
  }
  TimeBudget t = BudgetOfRows(acts.start_ns, acts.duration_ns, kinds, all);
  EXPECT_EQ(t.computation_ns, 0);
  EXPECT_EQ(t.communication_ns, 55);  // [10,50) + [55,60) + [70,80): every row
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

// Rows handed in any order give the budget of the rows in start order (the
// sweep sorts a copy of the row list).
TEST(Breakdown, RowsInAnyOrderGiveTheSameBudget) {
  model::RankProfile p = Profile();
  const auto& acts = p.device_events;
  std::vector<uint32_t> rows;
  for (size_t i = 0; i < acts.size(); ++i) rows.push_back(static_cast<uint32_t>(i));
  const TimeBudget sorted = BudgetOfRows(acts.start_ns, acts.duration_ns, acts.kind, rows);
  std::reverse(rows.begin(), rows.end());
  const TimeBudget reversed = BudgetOfRows(acts.start_ns, acts.duration_ns, acts.kind, rows);
  EXPECT_EQ(reversed.busy_ns, sorted.busy_ns);
  EXPECT_EQ(reversed.computation_ns, sorted.computation_ns);
  EXPECT_EQ(reversed.exposed_communication_ns, sorted.exposed_communication_ns);
  EXPECT_EQ(reversed.exposed_memcpy_ns, sorted.exposed_memcpy_ns);
  EXPECT_EQ(reversed.window_start_ns, sorted.window_start_ns);
  EXPECT_EQ(reversed.idle_ns, sorted.idle_ns);
  EXPECT_EQ(sorted.busy_ns, 55);
}

}  // namespace
}  // namespace trainscope::analysis
