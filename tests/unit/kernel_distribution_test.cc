#include "analysis/step/kernel_distribution.h"

#include <gtest/gtest.h>

#include "analysis/job/rank_analysis.h"
#include "analysis/step/step_selection.h"

namespace trainscope::analysis {
namespace {

using model::ActivityKind;

// Appends a kernel; times in microseconds for readability.
void AddKernel(model::RankProfile& profile, int32_t step, std::string_view type, double start_us,
               double duration_us, ActivityKind kind = ActivityKind::kCompute) {
  model::DeviceEvent row;
  row.step = step;
  row.op_type = profile.strings.Intern(type);
  row.name =
      profile.strings.Intern(std::string("aclnn") + std::string(type) + "_" + std::string(type));
  row.start_ns = static_cast<int64_t>(start_us * 1000);
  row.duration_ns = static_cast<int64_t>(duration_us * 1000);
  row.kind = kind;
  profile.device_events.Append(row);
}

model::RankProfile ThreeStepProfile() {
  model::RankProfile profile;
  profile.rank = 3;
  // Step 5 (warm-up) is long; steps 6 and 7 are steady; step 8 is cut short.
  double t = 0;
  for (int step : {5, 6, 7, 8}) {
    int kernels = step == 8 ? 2 : 10;
    for (int i = 0; i < kernels; ++i) {
      AddKernel(profile, step, i % 2 ? "Mul" : "MatMulV3", t, i % 2 ? 20 : 200);
      t += step == 5 ? 1000 : 300;
    }
    t += 5000;
  }
  return profile;
}

TEST(StepSelectionTest, SkipsWarmupAndTakesTheMedianSpanStep) {
  model::RankProfile profile = ThreeStepProfile();
  EXPECT_EQ(StepsPresent(profile), (std::vector<int32_t>{5, 6, 7, 8}));
  auto choice = SelectStep(profile, std::nullopt);
  ASSERT_TRUE(choice.ok());
  // Spans of 6, 7, 8: 2900, 2900, 500 us; median 2900 -> the first such, 6.
  EXPECT_EQ(choice->step, 6);
  EXPECT_NE(choice->reason.find("skipped step 5"), std::string::npos) << choice->reason;
  EXPECT_NE(choice->reason.find("median span"), std::string::npos) << choice->reason;
}

TEST(StepSelectionTest, RequestedStepMustExist) {
  model::RankProfile profile = ThreeStepProfile();
  auto chosen = SelectStep(profile, 8);
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(chosen->step, 8);
  auto missing = SelectStep(profile, 42);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("5, 6, 7, 8"), std::string::npos);
}

TEST(StepSelectionTest, NoStepIdsMeansTheWholeCapture) {
  model::RankProfile profile;
  AddKernel(profile, model::kNoStep, "Mul", 0, 5);
  auto choice = SelectStep(profile, std::nullopt);
  ASSERT_TRUE(choice.ok());
  EXPECT_EQ(choice->step, model::kNoStep);
}

TEST(KernelDistributionTest, ComputesCountsQuantilesSharesAndFamilies) {
  model::RankProfile profile;
  // 4 kernels in step 1: 10, 40, 60, 200 us; one communication of 1000 us.
  AddKernel(profile, 1, "Cast", 0, 10);
  AddKernel(profile, 1, "Mul", 100, 40);
  AddKernel(profile, 1, "MatMulV3", 200, 60);
  AddKernel(profile, 1, "MatMulV3", 300, 200);
  AddKernel(profile, 1, "hcom_allReduce_", 600, 1000, ActivityKind::kCommunication);
  AddKernel(profile, 2, "Mul", 5000, 1);  // another step, must be ignored
  StepDistribution d =
      ComputeStepDistribution(profile, 1, KernelFamilies(profile, FamilyRules::Builtin()));
  EXPECT_EQ(d.kernels.count, 5);
  EXPECT_EQ(d.kernels.compute_count, 4);
  EXPECT_EQ(d.kernels.communication_count, 1);
  EXPECT_EQ(d.kernels.span_ns, 1'600'000);
  EXPECT_DOUBLE_EQ(d.kernels.mean_issue_interval_ns, 150'000);  // (600 - 0) us / 4
  EXPECT_EQ(d.kernels.total_time_ns, 1'310'000);
  EXPECT_DOUBLE_EQ(d.kernels.p50_ns, 60'000);
  EXPECT_DOUBLE_EQ(d.kernels.p90_ns, 200'000 + (1'000'000 - 200'000) * 0.6);  // position 3.6
  EXPECT_DOUBLE_EQ(d.kernels.share_le_50us, 2.0 / 5);
  EXPECT_DOUBLE_EQ(d.kernels.share_le_100us, 3.0 / 5);
  EXPECT_EQ(d.kernels.max_ns, 1'000'000);

  auto family = [&](const std::string& name) {
    for (const auto& f : d.families) {
      if (f.name == name) return f;
    }
    return FamilyStat{};
  };
  EXPECT_EQ(family("matmul/attention").count, 2);
  EXPECT_EQ(family("matmul/attention").total_ns, 260'000);
  EXPECT_EQ(family("communication").count, 1);
  EXPECT_EQ(family("glue/data movement").count, 1);
  EXPECT_EQ(family("elementwise").count, 1);
  int64_t total = 0;
  for (const auto& f : d.families) total += f.count;
  EXPECT_EQ(total, d.kernels.count);

  ASSERT_GE(d.top_operators.size(), 3u);
  EXPECT_EQ(d.top_operators[0].op_type, "hcom_allReduce_");
  EXPECT_EQ(d.top_operators[1].op_type, "MatMulV3");
  EXPECT_EQ(d.top_operators[1].count, 2);
  EXPECT_EQ(d.top_operators[1].total_ns, 2 * 130'000);  // a mean of 130 us
}

// Ascend Level0 exports type no compute kernel ("N/A"): the reader derives
// the type from the name, a guess (the name ReduceSum147 is typed
// ReduceSumD at Level1). The operator row says its type is derived; a type
// the export gives is not marked, even beside a derived one.
TEST(KernelDistributionTest, DerivedOpTypesAreMarked) {
  model::RankProfile profile;
  AddKernel(profile, 1, "ReduceSum", 0, 10);
  AddKernel(profile, 1, "MatMulV3", 100, 40);
  AddKernel(profile, 1, "ReduceSum", 200, 10);
  profile.device_events.op_type_derived[0] = 1;  // "ReduceSum147", Type N/A
  profile.device_events_source = model::DeviceEventsSource::kKernelDetailsCsv;
  StepDistribution d =
      ComputeStepDistribution(profile, 1, KernelFamilies(profile, FamilyRules::Builtin()));
  ASSERT_EQ(d.top_operators.size(), 2u);
  EXPECT_EQ(d.top_operators[0].op_type, "MatMulV3");
  EXPECT_FALSE(d.top_operators[0].type_derived);
  EXPECT_EQ(d.top_operators[1].op_type, "ReduceSum");
  EXPECT_TRUE(d.top_operators[1].type_derived);
}

TEST(KernelDistributionTest, AnalyzeRankListsEveryStepAndTheSelectedOne) {
  model::RankProfile profile = ThreeStepProfile();
  auto analysis = AnalyzeRank(profile, FamilyRules::Builtin(), {});
  ASSERT_TRUE(analysis.ok());
  ASSERT_EQ(analysis->steps.size(), 4u);
  EXPECT_EQ(analysis->selected_step, 6);
  ASSERT_NE(analysis->selected(), nullptr);
  EXPECT_EQ(analysis->selected()->kernels.count, 10);
  EXPECT_EQ(analysis->steps[3].kernels.count, 2);
}

}  // namespace
}  // namespace trainscope::analysis
