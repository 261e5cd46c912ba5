// stage-imbalance across pipeline stages.
#include "analysis/findings/pipeline_findings.h"

#include <gtest/gtest.h>

#include <vector>

#include "time_units.h"

namespace trainscope::analysis {
namespace {

using testing::kMs;

std::vector<Finding> Imbalance(const std::vector<StageComputation>& ranks) {
  std::vector<Finding> out;
  AddStageImbalance(ranks, FindingCatalog::Builtin().thresholds(), &out);
  RenderFindings(FindingCatalog::Builtin(), &out, model::Platform::kAscend);
  return out;
}

TEST(StageImbalance, TheSlowestStageIsNamedWithItsRanks) {
  // Two stages of two ranks (PP=2, DP=2): stage 1 computes 170 ms more in
  // an 800 ms step (21%).
  const auto out = Imbalance({{0, 0, 230 * kMs, 800 * kMs},
                              {1, 0, 232 * kMs, 800 * kMs},
                              {2, 1, 400 * kMs, 800 * kMs},
                              {3, 1, 402 * kMs, 800 * kMs}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].id, "stage-imbalance");
  EXPECT_EQ(out[0].ranks, (std::vector<int32_t>{2, 3}));
  // Balanced, each stage would take the mean (316 ms): 85 ms of 800.
  EXPECT_NEAR(out[0].estimated_gain_pct, (401.0 - 316.0) / 800 * 100, 1e-9);
  EXPECT_NE(out[0].title.find("stage 1"), std::string::npos) << out[0].title;
  EXPECT_NE(out[0].evidence.find("stage 0 231.0 ms (ranks 0, 1)"), std::string::npos)
      << out[0].evidence;
  EXPECT_NE(out[0].remedy.find("--num-layer-list"), std::string::npos);
}

TEST(StageImbalance, BalancedStagesAndSingleStagesSayNothing) {
  // 3% of the step apart: under stage_imbalance_pct.
  EXPECT_TRUE(Imbalance({{0, 0, 300 * kMs, 1000 * kMs}, {1, 1, 330 * kMs, 1000 * kMs}}).empty());
  // No stage known (no profiler_metadata.json), or one stage only.
  EXPECT_TRUE(Imbalance({{0, -1, 100 * kMs, 1000 * kMs}, {1, -1, 500 * kMs, 1000 * kMs}}).empty());
  EXPECT_TRUE(Imbalance({{0, 0, 100 * kMs, 1000 * kMs}, {1, 0, 500 * kMs, 1000 * kMs}}).empty());
}

}  // namespace
}  // namespace trainscope::analysis
