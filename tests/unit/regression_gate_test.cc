// The regression gate's parts: the rank-sum test against hand-counted
// distributions, rule parsing, and the gate's verdicts on jobs built by
// hand (steps x ranks with known times).
#include "analysis/compare/regression_gate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "analysis/compare/mann_whitney.h"
#include "analysis/compare/workload_check.h"

namespace trainscope::analysis {
namespace {

TEST(MannWhitney, SeparatedSamplesGiveTheSmallestPValue) {
  // NEW above every BASE value: U = 3 x 3 = 9, and of the C(6, 3) = 20
  // equally likely splits only this one reaches it.
  const RankSumTest t = MannWhitneyGreater({1, 2, 3}, {4, 5, 6});
  EXPECT_DOUBLE_EQ(t.u, 9);
  ASSERT_TRUE(t.p_value);
  EXPECT_TRUE(t.exact);
  EXPECT_NEAR(*t.p_value, 1.0 / 20, 1e-12);
  EXPECT_NEAR(*t.min_p_value, 1.0 / 20, 1e-12);
  // Five against five: 1 / C(10, 5) = 1 / 252.
  const RankSumTest five = MannWhitneyGreater({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_NEAR(*five.p_value, 1.0 / 252, 1e-12);
}

TEST(MannWhitney, InterleavedSamplesCountedByHand) {
  // BASE 1 3 5, NEW 2 4 6: U = 1 + 2 + 3 = 6. The 20 splits of 3 + 3 give
  // U = 0..9 with counts 1 1 2 3 3 3 3 2 1 1, so P(U >= 6) = 7 / 20.
  const RankSumTest t = MannWhitneyGreater({1, 3, 5}, {2, 4, 6});
  EXPECT_DOUBLE_EQ(t.u, 6);
  EXPECT_NEAR(*t.p_value, 7.0 / 20, 1e-12);
  // NEW below BASE: every split has U >= 0.
  EXPECT_NEAR(*MannWhitneyGreater({4, 5, 6}, {1, 2, 3}).p_value, 1.0, 1e-12);
}

TEST(MannWhitney, TiesAndEmptySides) {
  // All tied: every split has the same rank sum, no evidence of a shift.
  const RankSumTest tied = MannWhitneyGreater({7, 7, 7}, {7, 7, 7});
  EXPECT_DOUBLE_EQ(tied.u, 4.5);
  EXPECT_NEAR(*tied.p_value, 1.0, 1e-12);
  // One tie across the sides: BASE 1 2, NEW 2 3. Mid-ranks 1, 2.5, 2.5, 4;
  // NEW's rank sum 6.5; of the 6 splits, sums are 3.5, 3.5, 5, 5, 6.5,
  // 6.5 (the two 2s exchangeable): P(sum >= 6.5) = 2 / 6.
  EXPECT_NEAR(*MannWhitneyGreater({1, 2}, {2, 3}).p_value, 2.0 / 6, 1e-12);
  EXPECT_FALSE(MannWhitneyGreater({}, {1, 2}).p_value);
}

TEST(MannWhitney, NormalApproximationAboveTheExactSize) {
  std::vector<double> base, shifted, same;
  for (int i = 0; i < 30; ++i) {
    base.push_back(100 + i % 7);
    shifted.push_back(110 + i % 7);
    same.push_back(100 + (i + 3) % 7);
  }
  const RankSumTest up = MannWhitneyGreater(base, shifted);
  EXPECT_FALSE(up.exact);
  EXPECT_LT(*up.p_value, 1e-6);
  const RankSumTest flat = MannWhitneyGreater(base, same);
  EXPECT_GT(*flat.p_value, 0.3);
}

TEST(GateRules, DefaultAndExplicitRules) {
  auto defaults = ParseGateRules("");
  ASSERT_TRUE(defaults.ok()) << defaults.status().message();
  ASSERT_EQ(defaults->size(), 3u);
  EXPECT_EQ((*defaults)[0].metric, "step_time");
  EXPECT_DOUBLE_EQ((*defaults)[0].threshold, 3);
  EXPECT_EQ((*defaults)[2].metric, "op");
  EXPECT_EQ((*defaults)[2].name, "*");
  auto rules = ParseGateRules("op:ns::gemm<a:b>:+10%, exposed_comm:+2ms,kernel_time:+500us");
  ASSERT_TRUE(rules.ok()) << rules.status().message();
  ASSERT_EQ(rules->size(), 3u);
  EXPECT_EQ((*rules)[0].name, "ns::gemm<a:b>");  // the threshold is after the last colon
  EXPECT_FALSE((*rules)[1].relative);
  EXPECT_DOUBLE_EQ((*rules)[1].threshold, 2);
  EXPECT_DOUBLE_EQ((*rules)[2].threshold, 0.5);
  for (const char* bad : {"speed:+3%", "step_time:3%", "step_time:+3", "op:+3%", "step_time:x:+3%",
                          "step_time:+-1%", ","}) {
    auto r = ParseGateRules(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find("hint:"), std::string::npos) << bad;
    }
  }
}

// A job of |ranks| ranks x |steps| steps; step s of rank r takes
// |step_ms|(r, s) ms, of which MatMul takes |matmul_ms|(r, s).
template <class StepMs, class MatmulMs>
JobAnalysis HandJob(int ranks, int steps, StepMs step_ms, MatmulMs matmul_ms) {
  JobAnalysis job;
  for (int r = 0; r < ranks; ++r) {
    RankAnalysis rank;
    rank.header.rank = r;
    rank.header.workload = "training";
    for (int s = 0; s < steps; ++s) {
      StepDistribution step;
      step.step = s;
      step.kernels.count = 10;
      step.kernels.span_ns = std::llround(step_ms(r, s) * 1e6);
      const auto matmul_ns = std::llround(matmul_ms(r, s) * 1e6);
      step.kernels.total_time_ns = matmul_ns + 2'000'000;
      step.top_operators.push_back({"MatMul", "matmul/attention", 5, matmul_ns, 0, 0, false});
      step.top_operators.push_back({"Add", "elementwise", 5, 2'000'000, 0, 0, false});
      rank.steps.push_back(step);
    }
    job.ranks.push_back(rank);
  }
  return job;
}

// Small deterministic jitter, +-0.5% of 100 ms.
double Jitter(int r, int s) { return 0.5 * std::sin(1.7 * r + 2.3 * s); }

const GateCheck* CheckOf(const GateResult& g, const std::string& rule) {
  for (const GateCheck& c : g.checks) {
    if (c.rule == rule) return &c;
  }
  return nullptr;
}

TEST(RegressionGate, IdenticalRunsPass) {
  const JobAnalysis a = HandJob(
      2, 4, [](int r, int s) { return 100 + Jitter(r, s); }, [](int, int) { return 50.0; });
  auto rules = ParseGateRules("default");
  ASSERT_TRUE(rules.ok());
  auto g = RunGate(a, a, *rules, GateOptions{});
  ASSERT_TRUE(g.ok()) << g.status().message();
  for (const GateCheck& c : g->checks) {
    if (c.metric != "exposed_comm") {
      EXPECT_EQ(c.verdict, GateVerdict::kPass) << c.rule << ": " << c.reason;
    }
  }
  // Nothing failed, but one rule had no data: the gate cannot conclude.
  EXPECT_EQ(g->verdict, GateVerdict::kCannotConclude) << g->summary;
  const GateCheck* step = CheckOf(*g, "step_time:+3%");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->n_base, 8u);
  EXPECT_DOUBLE_EQ(*step->shift_ms, 0);
  // op:* holds MatMul and Add (both above 1% of the kernel time).
  EXPECT_NE(CheckOf(*g, "op:MatMul:+10%"), nullptr);
  EXPECT_NE(CheckOf(*g, "op:Add:+10%"), nullptr);
  // exposed_comm needs a time budget, which these steps lack.
  const GateCheck* exposed = CheckOf(*g, "exposed_comm:+5%");
  ASSERT_NE(exposed, nullptr);
  EXPECT_EQ(exposed->verdict, GateVerdict::kCannotConclude);
}

TEST(RegressionGate, PlantedStepRegressionFailsAndSmallShiftPasses) {
  const JobAnalysis base = HandJob(
      2, 4, [](int r, int s) { return 100 + Jitter(r, s); }, [](int, int) { return 50.0; });
  const JobAnalysis slow = HandJob(
      2, 4, [](int r, int s) { return 105 + Jitter(r + 5, s); }, [](int, int) { return 50.0; });
  const JobAnalysis bit = HandJob(
      2, 4, [](int r, int s) { return 102 + Jitter(r + 5, s); }, [](int, int) { return 50.0; });
  auto rules = ParseGateRules("step_time:+3%");
  ASSERT_TRUE(rules.ok());
  auto g = RunGate(base, slow, *rules, GateOptions{});
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->verdict, GateVerdict::kRegression) << g->summary;
  const GateCheck& c = g->checks.front();
  // Jitter stays within +-0.5 ms: every NEW sample is above every BASE one,
  // so p is the smallest 8 + 8 samples allow, 1 / C(16, 8) = 1 / 12870.
  EXPECT_NEAR(*c.p_value, 1.0 / 12870, 1e-12);
  EXPECT_NEAR(*c.shift_pct, 5, 1.0);
  // +2%: real (same p) but under the threshold.
  auto small = RunGate(base, bit, *rules, GateOptions{});
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->verdict, GateVerdict::kPass) << small->summary;
}

TEST(RegressionGate, OneOperatorRegressionFailsOnlyItsRule) {
  const JobAnalysis base = HandJob(
      2, 4, [](int r, int s) { return 100 + Jitter(r, s); }, [](int, int) { return 50.0; });
  // MatMul 20% slower while the step grows by 1% only (the extra time
  // overlapped with other work): only MatMul's rule fails.
  const JobAnalysis next = HandJob(
      2, 4, [](int r, int s) { return 101 + Jitter(r, s); },
      [](int r, int s) { return 60.0 + 0.1 * Jitter(r, s); });
  auto rules = ParseGateRules("default");
  ASSERT_TRUE(rules.ok());
  auto g = RunGate(base, next, *rules, GateOptions{});
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->verdict, GateVerdict::kRegression);
  for (const GateCheck& c : g->checks) {
    if (c.rule == "op:MatMul:+10%") {
      EXPECT_EQ(c.verdict, GateVerdict::kRegression) << c.reason;
    } else {
      EXPECT_NE(c.verdict, GateVerdict::kRegression) << c.rule << ": " << c.reason;
    }
  }
}

TEST(RegressionGate, TooFewSamplesCannotConclude) {
  // 2 ranks x 2 steps a side: the smallest p is 1 / C(8, 4) = 1 / 70 > 0.01.
  const JobAnalysis base = HandJob(
      2, 2, [](int, int) { return 100.0; }, [](int, int) { return 50.0; });
  const JobAnalysis slow = HandJob(
      2, 2, [](int, int) { return 150.0; }, [](int, int) { return 50.0; });
  auto rules = ParseGateRules("step_time:+3%");
  ASSERT_TRUE(rules.ok());
  auto g = RunGate(base, slow, *rules, GateOptions{});
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->verdict, GateVerdict::kCannotConclude);
  EXPECT_NEAR(*g->checks.front().min_p_value, 1.0 / 70, 1e-12);
  EXPECT_NE(g->checks.front().reason.find("too few"), std::string::npos);
}

TEST(RegressionGate, NotComparableWorkloadsCannotConclude) {
  const JobAnalysis a = HandJob(
      2, 4, [](int r, int s) { return 100 + Jitter(r, s); }, [](int, int) { return 50.0; });
  GateOptions options;
  options.not_comparable = "different workloads";
  auto rules = ParseGateRules("step_time:+3%");
  ASSERT_TRUE(rules.ok());
  auto g = RunGate(a, a, *rules, options);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->verdict, GateVerdict::kCannotConclude);
}

TEST(RegressionGate, UnknownOperatorIsAUsageError) {
  const JobAnalysis a = HandJob(
      1, 6, [](int, int) { return 100.0; }, [](int, int) { return 50.0; });
  auto rules = ParseGateRules("op:Conv2D:+10%");
  ASSERT_TRUE(rules.ok());
  auto g = RunGate(a, a, *rules, GateOptions{});
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kUsage);
}

// A job whose one step holds |ops| (type, ms).
JobAnalysis MixJob(const std::vector<std::pair<std::string, double>>& ops, int kernels,
                   const std::string& kind = "training") {
  JobAnalysis job;
  RankAnalysis rank;
  rank.header.rank = 0;
  rank.header.workload = kind;
  StepDistribution step;
  step.kernels.count = kernels;
  for (const auto& [type, ms] : ops) {
    step.top_operators.push_back({type, "", 1, std::llround(ms * 1e6), 0, 0, false});
    step.kernels.total_time_ns += std::llround(ms * 1e6);
  }
  rank.steps.push_back(step);
  job.ranks.push_back(rank);
  return job;
}

TEST(WorkloadCheck, ConvolutionNetAgainstTransformerDiffers) {
  const JobAnalysis resnet = MixJob({{"implicit_convolve_sgemm", 60},
                                     {"bn_fw_tr_1C11_kernel_NCHW", 20},
                                     {"elementwise_kernel", 15},
                                     {"max_pool_forward_nchw", 5}},
                                    300);
  const JobAnalysis llm =
      MixJob({{"MatMulV2", 50}, {"FlashAttentionScore", 25}, {"RmsNorm", 10}, {"Add", 15}}, 3000);
  const WorkloadCheck w = CheckWorkload(resnet, llm);
  EXPECT_EQ(w.verdict, WorkloadVerdict::kDifferent) << w.summary;
  // Shares: conv .60 / batch norm .20 / pooling .05 / other .15 against
  // matmul .50 / attention .25 / layer norm .10 / other .15: all but
  // "other" differ, half the sum of |differences| is 0.85.
  ASSERT_TRUE(w.kernel_mix_distance);
  EXPECT_NEAR(*w.kernel_mix_distance, 0.85, 1e-9);
  EXPECT_EQ(KernelClassOf("sm80_xmma_fprop_implicit_gemm", "matmul/attention"), "convolution");
  EXPECT_EQ(KernelClassOf("ampere_sgemm_128x64_tn", "matmul/attention"), "matmul");
  EXPECT_EQ(KernelClassOf("Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV", "matmul/attention"), "matmul");
  EXPECT_EQ(KernelClassOf("Cast", "glue/data"), "other");
}

TEST(WorkloadCheck, FusedRunOfOneModelIsTheSameWorkload) {
  // Fusing the norm: fewer kernels, a changed mix, still one workload.
  const JobAnalysis base = MixJob(
      {{"MatMulV2", 50}, {"FlashAttentionScore", 25}, {"Pow", 4}, {"Rsqrt", 4}, {"Mul", 8}}, 3000);
  const JobAnalysis fused =
      MixJob({{"MatMulV2", 50}, {"FlashAttentionScore", 25}, {"RmsNorm", 6}}, 1500);
  const WorkloadCheck w = CheckWorkload(base, fused);
  EXPECT_EQ(w.verdict, WorkloadVerdict::kSame) << w.summary;
  const WorkloadCheck kind = CheckWorkload(base, MixJob({{"MatMulV2", 50}}, 100, "inference"));
  EXPECT_EQ(kind.verdict, WorkloadVerdict::kDifferent) << kind.summary;
}

}  // namespace
}  // namespace trainscope::analysis
