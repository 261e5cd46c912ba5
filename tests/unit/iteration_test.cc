// The GPU iteration window (model/iteration.h) and its budget, on step
// windows and kernels written for this test: the device waiting for the
// host between iterations is part of the step and of its idle.
#include "model/iteration.h"

#include <gtest/gtest.h>

#include <optional>

#include "analysis/step/step_budget.h"
#include "model/rank_profile.h"
#include "time_units.h"

namespace trainscope::model {
namespace {

using testing::kMs;

// Host steps [0,10), [10,20), [20,30) ms; one kernel per step.
RankProfile ThreeSteps(int64_t first_kernel_end) {
  RankProfile p;
  p.device_events_source = DeviceEventsSource::kTrace;
  p.timeline.present = true;
  p.timeline.step_source = StepSource::kProfilerStep;
  p.timeline.steps = {{1, 0, 10 * kMs, kNoIndex},
                      {2, 10 * kMs, 20 * kMs, kNoIndex},
                      {3, 20 * kMs, 30 * kMs, kNoIndex}};
  auto add = [&](int64_t start, int64_t end, int32_t step) {
    DeviceEvent e;
    e.start_ns = start;
    e.duration_ns = end - start;
    e.step = step;
    e.stream = 7;
    e.kind = ActivityKind::kCompute;
    e.name = p.strings.Intern("k");
    p.device_events.Append(e);
  };
  add(2 * kMs, first_kernel_end, 1);
  add(std::max<int64_t>(12 * kMs, first_kernel_end),
      std::max<int64_t>(15 * kMs, first_kernel_end + 3 * kMs), 2);
  add(25 * kMs, 27 * kMs, 3);
  return p;
}

TEST(Iteration, RunsFromThisStepsStartToTheNext) {
  const RankProfile p = ThreeSteps(6 * kMs);
  ASSERT_TRUE(HasIterations(p));
  const std::optional<Iteration> first = IterationOf(p, 1);
  const std::optional<Iteration> second = IterationOf(p, 2);
  const std::optional<Iteration> last = IterationOf(p, 3);
  ASSERT_TRUE(first && second && last);
  // Not before the capture's first device activity (2 ms).
  EXPECT_EQ(first->start_ns, 2 * kMs);
  EXPECT_EQ(first->end_ns, 10 * kMs);
  EXPECT_TRUE(first->ends_at_next);
  EXPECT_EQ(second->start_ns, 10 * kMs);
  EXPECT_EQ(second->end_ns, 20 * kMs);
  // The last step ends at the later of its host end and its device end.
  EXPECT_EQ(last->start_ns, 20 * kMs);
  EXPECT_EQ(last->end_ns, 30 * kMs);
  EXPECT_FALSE(last->ends_at_next);
  EXPECT_EQ(second->host_span_ns(), 10 * kMs);
}

TEST(Iteration, ADeviceThatLagsStartsTheNextIterationWhenItIsFree) {
  // Step 1's kernel runs until 14 ms, past step 2's host start (10 ms).
  const RankProfile p = ThreeSteps(14 * kMs);
  const std::optional<Iteration> first = IterationOf(p, 1);
  const std::optional<Iteration> second = IterationOf(p, 2);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->end_ns, 14 * kMs);
  EXPECT_EQ(second->start_ns, 14 * kMs);
}

TEST(Iteration, TheBudgetCountsTheHostWaitAsIdle) {
  const RankProfile p = ThreeSteps(6 * kMs);
  const std::optional<analysis::StepBudget> b = analysis::ComputeStepBudget(p, 2);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->span, analysis::kSpanIteration);
  EXPECT_EQ(b->budget.total_ns, 10 * kMs);
  EXPECT_EQ(b->budget.computation_ns, 3 * kMs);
  EXPECT_EQ(b->budget.idle_ns, 7 * kMs);
  ASSERT_TRUE(b->device_busy_span_ns && b->host_step_ns);
  EXPECT_EQ(*b->device_busy_span_ns, 3 * kMs);
  EXPECT_EQ(*b->host_step_ns, 10 * kMs);
}

TEST(Iteration, AGapBetweenHostStepsEndsTheRun) {
  RankProfile p = ThreeSteps(6 * kMs);
  // A sampled capture: step 3 comes 5 ms after step 2's host window ends.
  p.timeline.steps[1].end_ns = 15 * kMs;
  const std::optional<Iteration> second = IterationOf(p, 2);
  ASSERT_TRUE(second);
  EXPECT_FALSE(second->ends_at_next);
  EXPECT_EQ(second->end_ns, 15 * kMs);
}

TEST(Iteration, AscendExportsKeepTheProfilersStep) {
  RankProfile p = ThreeSteps(6 * kMs);
  p.profiler_output = "/x/ASCEND_PROFILER_OUTPUT";
  EXPECT_FALSE(HasIterations(p));
  EXPECT_FALSE(IterationOf(p, 2));
}

}  // namespace
}  // namespace trainscope::model
