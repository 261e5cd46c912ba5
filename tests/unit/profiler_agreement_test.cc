// The budget is checked against step_trace_time.csv (item 1).
#include "analysis/step/profiler_agreement.h"

#include <gtest/gtest.h>

#include <string>

#include "analysis/common/family_rules.h"
#include "analysis/job/rank_analysis.h"
#include "formats/load_profiles.h"
#include "test_paths.h"

namespace trainscope::analysis {
namespace {

TEST(ProfilerAgreement, DifferencesAreSharesOfTheProfilersStep) {
  TimeBudget budget;
  budget.computation_ns = 1'000'000;
  budget.exposed_communication_ns = 500'000;
  budget.idle_ns = 100'000;
  StepTraceSummary profiler;
  profiler.computing_ns = 1'010'000;  // 10 us more than ours
  profiler.communication_not_overlapped_ns = 500'000;
  profiler.free_ns = 90'000;  // 10 us less
  const auto a = CompareWithProfiler(budget, profiler);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->profiler_step_ns, 1'600'000);
  EXPECT_EQ(a->computation_delta_ns, -10'000);
  EXPECT_EQ(a->exposed_communication_delta_ns, 0);
  EXPECT_EQ(a->idle_delta_ns, 10'000);
  EXPECT_DOUBLE_EQ(a->worst_share, 10'000.0 / 1'600'000.0);
  EXPECT_TRUE(a->agrees);

  profiler.computing_ns = 1'100'000;  // 100 us of 1.69 ms: 5.9%
  const auto b = CompareWithProfiler(budget, profiler);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->computation_delta_ns, -100'000);
  EXPECT_FALSE(b->agrees);

  EXPECT_FALSE(CompareWithProfiler(budget, StepTraceSummary{}).has_value());
}

JobAnalysis AnalyzeCase(const std::string& name) {
  const std::string dir =
      testing::SourceDir() + "/tests/golden/cases/ascend_text/" + name + "/input";
  auto loaded = formats::LoadProfiles({dir}, 1);
  EXPECT_TRUE(loaded.ok()) << loaded.status().message();
  auto job = AnalyzeJob(loaded->profiles, FamilyRules::Builtin(), AnalysisOptions{}, 1);
  EXPECT_TRUE(job.ok()) << job.status().message();
  return std::move(*job);
}

// A 2024 trace_view.json types AI Vector tasks "Other": they are kernels, so
// the trace's computation is the profiler's Computing (1390 us), not the
// 30 us of the one AI_CORE task; HCCL/runtime tasks typed "Other" are not.
TEST(ProfilerAgreement, TaskTypeOtherCountsAsKernelsAndAgreesWithStepTrace) {
  const JobAnalysis job = AnalyzeCase("trace_view_2024_task_type_other");
  ASSERT_EQ(job.ranks.size(), 1u);
  const StepDistribution* step = job.ranks[0].selected();
  ASSERT_NE(step, nullptr);
  ASSERT_TRUE(step->breakdown.has_value());
  EXPECT_EQ(step->breakdown->source, "trace");
  EXPECT_EQ(step->breakdown->budget.computation_ns, 1'390'000);
  EXPECT_EQ(step->breakdown->budget.exposed_communication_ns, 800'000);
  EXPECT_EQ(step->breakdown->budget.idle_ns, 50'000);
  const auto agreement = CompareWithProfiler(*step);
  ASSERT_TRUE(agreement.has_value());
  EXPECT_TRUE(agreement->agrees);
  EXPECT_EQ(agreement->computation_delta_ns, 0);
  EXPECT_TRUE(job.ranks[0].header.warnings.empty());
}

// step_trace_time.csv says step 6 computed 300 us more than kernel_details.csv
// has: the rank carries one warning naming both files, the step and the size.
TEST(ProfilerAgreement, DisagreementBeyondTwoPercentIsAWarning) {
  const JobAnalysis job = AnalyzeCase("step_trace_disagrees");
  ASSERT_EQ(job.ranks.size(), 1u);
  const auto& warnings = job.ranks[0].header.warnings;
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("kernel_details.csv disagrees with step_trace_time.csv by 9.6%"),
            std::string::npos)
      << warnings[0];
  // No other source agrees: the step's timeline is set aside.
  EXPECT_NE(warnings[0].find("in 1 of 2 steps (6); step 6:"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("computation -0.300 ms"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("comes from step_trace_time.csv"), std::string::npos) << warnings[0];
}

// A rank with step_trace_time.csv but no device events keeps its budget
// from CANN's accounting, and with it its findings.
TEST(ProfilerAgreement, StepTraceOnlyRankBudgetsFromTheProfiler) {
  const JobAnalysis job = AnalyzeCase("step_trace_only");
  ASSERT_EQ(job.ranks.size(), 1u);
  const StepDistribution* step = job.ranks[0].selected();
  ASSERT_NE(step, nullptr);
  ASSERT_TRUE(step->breakdown.has_value());
  ASSERT_TRUE(step->step_trace.has_value());
  EXPECT_EQ(step->breakdown->source, "step_trace_time.csv");
  const TimeBudget& b = step->breakdown->budget;
  EXPECT_EQ(b.computation_ns, step->step_trace->computing_ns);
  EXPECT_EQ(b.exposed_communication_ns, step->step_trace->communication_not_overlapped_ns);
  EXPECT_EQ(b.idle_ns, step->step_trace->free_ns);
  EXPECT_EQ(b.total_ns, step->step_trace->computing_ns +
                            step->step_trace->communication_not_overlapped_ns +
                            step->step_trace->free_ns);
  EXPECT_FALSE(CompareWithProfiler(*step).has_value());  // not compared with itself
  EXPECT_FALSE(job.findings.empty());
}

// Two sources of one step: kernel_details.csv lost two of its four compute
// rows (computation 930 us against the profiler's 1390 us), the trace has
// them all: the budget follows the trace, and the rank says why ("use the
// source that agrees").
TEST(ProfilerAgreement, TheSourceThatAgreesIsUsed) {
  const JobAnalysis job = AnalyzeCase("kernel_details_disagrees_trace_agrees");
  ASSERT_EQ(job.ranks.size(), 1u);
  const StepDistribution* step = job.ranks[0].selected();
  ASSERT_NE(step, nullptr);
  ASSERT_TRUE(step->breakdown.has_value());
  EXPECT_EQ(step->breakdown->source, "trace_view.json");
  EXPECT_EQ(step->breakdown->replaced, "kernel_details.csv");
  EXPECT_EQ(step->breakdown->budget.computation_ns, 1'390'000);
  EXPECT_EQ(step->kernels.compute_count, 2);  // the kernel list still follows the CSV
  bool said = false;
  for (const std::string& w : job.ranks[0].header.warnings) {
    said |= w.find(
                "kernel_details.csv disagrees with step_trace_time.csv by more than 2% in "
                "step(s) 5, and trace_view.json agrees") != std::string::npos;
  }
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace trainscope::analysis
