// Estimated gains: each clamped to [0, 100] % of the step,
// and one projection of applying them all that counts shared time once.
#include "analysis/common/gain_projection.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "analysis/common/family_rules.h"
#include "analysis/job/rank_analysis.h"

namespace trainscope::analysis {
namespace {

Finding Gain(const std::string& id, double pct) {
  Finding f;
  f.id = id;
  f.estimated_gain_pct = pct;
  return f;
}

// One rank, one step of |span_ns| with these findings, through Combine.
JobAnalysis JobWith(std::vector<Finding> findings, int64_t span_ns) {
  RankResult rank;
  rank.header.rank = 0;
  rank.steps_info.rank = 0;
  rank.steps_info.present = {1};
  rank.steps_info.spans_ns = {{1, span_ns}};
  rank.own_step = StepChoice{1, "step 1: the only step captured"};
  RankStepResult step;
  step.distribution.step = 1;
  step.distribution.kernels.count = 1;
  step.distribution.kernels.compute_count = 1;
  step.distribution.kernels.span_ns = span_ns;
  step.threshold_findings = std::move(findings);
  rank.steps.push_back(std::move(step));
  std::vector<RankResult> ranks;
  ranks.push_back(std::move(rank));
  const JobContext context{FamilyRules::Builtin(), AnalysisOptions{}, 1};
  auto job = Combine(std::move(ranks), context);
  EXPECT_TRUE(job.ok());
  return job.ok() ? std::move(job).value() : JobAnalysis{};
}

TEST(GainProjection, ClampsEachGainToZeroToHundred) {
  EXPECT_EQ(ClampGainPct(-4.0), 0.0);
  EXPECT_EQ(ClampGainPct(250.0), 100.0);
  EXPECT_EQ(ClampGainPct(37.5), 37.5);
  EXPECT_EQ(ClampGainPct(std::numeric_limits<double>::quiet_NaN()), 0.0);
  EXPECT_EQ(ClampGainPct(std::numeric_limits<double>::infinity()), 100.0);
}

TEST(GainProjection, TheJobsFindingsAreClamped) {
  const JobAnalysis job = JobWith(
      {Gain("host-bound", 180.0), Gain("unfused-rmsnorm", -2.5), Gain("dominant-operator", 12.0)},
      1'000'000);
  ASSERT_EQ(job.findings.size(), 3u);
  EXPECT_EQ(job.findings[0].id, "host-bound");
  EXPECT_EQ(job.findings[0].estimated_gain_pct, 100.0);
  EXPECT_EQ(job.findings[1].estimated_gain_pct, 12.0);
  EXPECT_EQ(job.findings[2].id, "unfused-rmsnorm");
  EXPECT_EQ(job.findings[2].estimated_gain_pct, 0.0);
  // One finding claims the whole step: nothing is left of it.
  EXPECT_EQ(job.projection.combined_gain_pct, 100.0);
  ASSERT_TRUE(job.projection.projected_step_ns.has_value());
  EXPECT_EQ(*job.projection.projected_step_ns, 0);
}

TEST(GainProjection, GainsSummingPastTheStepProjectBetweenZeroAndTheStep) {
  const std::vector<std::pair<std::string, double>> gains = {{"exposed-communication", 60.0},
                                                             {"step-start-skew", 55.0},
                                                             {"host-bound", 40.0},
                                                             {"unfused-rmsnorm", 30.0},
                                                             {"dominant-operator", 25.0}};
  std::vector<Finding> findings;
  double sum = 0;
  for (const auto& [id, pct] : gains) {
    findings.push_back(Gain(id, pct));
    sum += pct;
  }
  ASSERT_GT(sum, 100.0);
  const int64_t step_ns = 2'000'000;
  const JobAnalysis job = JobWith(findings, step_ns);
  const GainProjection& p = job.projection;
  // The two communication-wait findings are one group, counted by the larger
  // (60); the other three are independent groups.
  const double remaining = (1 - 0.60) * (1 - 0.40) * (1 - 0.30) * (1 - 0.25);
  EXPECT_EQ(p.groups, 4);
  EXPECT_NEAR(p.combined_gain_pct, 100.0 * (1 - remaining), 1e-9);
  EXPECT_LT(p.combined_gain_pct, 100.0);
  EXPECT_LT(p.combined_gain_pct, sum);
  ASSERT_TRUE(p.step_ns.has_value());
  EXPECT_EQ(*p.step_ns, step_ns);
  ASSERT_TRUE(p.projected_step_ns.has_value());
  EXPECT_EQ(*p.projected_step_ns, std::llround(static_cast<double>(step_ns) * remaining));
  EXPECT_GT(*p.projected_step_ns, 0);
  EXPECT_LT(*p.projected_step_ns, step_ns);
}

TEST(GainProjection, CommunicationWaitFindingsShareOneGroup) {
  for (const char* id : {"exposed-communication", "step-start-skew", "straggler-rank",
                         "pseudo-overlap", "slow-link", "fragmented-communication"}) {
    EXPECT_EQ(GainGroup(id), "communication-wait") << id;
  }
  // The device's free time: host-bound, host-sync and launch-blocking.
  for (const char* id : {"host-bound", "host-sync", "launch-blocking"}) {
    EXPECT_EQ(GainGroup(id), "device-idle") << id;
  }
  EXPECT_EQ(GainGroup("pipeline-bubble"), "pipeline-wait");
  EXPECT_EQ(GainGroup("stage-imbalance"), "pipeline-wait");
  EXPECT_EQ(GainGroup("unfused-swiglu"), "unfused-swiglu");
}

TEST(GainProjection, InputBoundAddsToHostBound) {
  // host-bound leaves the idle behind the data loader to input-bound, so
  // the two claim disjoint time: independent groups, not the largest of one.
  EXPECT_EQ(GainGroup("input-bound"), "input-bound");
  const GainProjection p =
      ProjectGains({Gain("host-bound", 20.0), Gain("input-bound", 30.0)}, 100'000'000);
  EXPECT_EQ(p.groups, 2);
  EXPECT_NEAR(p.combined_gain_pct, 44.0, 1e-9);  // 1 - 0.8 x 0.7
}

TEST(GainProjection, NoStepMeansAnUnknownProjectedTime) {
  const GainProjection p = ProjectGains({Gain("host-bound", 20.0)}, std::nullopt);
  EXPECT_NEAR(p.combined_gain_pct, 20.0, 1e-12);
  EXPECT_FALSE(p.step_ns.has_value());
  EXPECT_FALSE(p.projected_step_ns.has_value());
}

TEST(GainProjection, NoFindingsLeaveTheStep) {
  const GainProjection p = ProjectGains({}, 5'000);
  EXPECT_EQ(p.combined_gain_pct, 0.0);
  EXPECT_EQ(p.groups, 0);
  ASSERT_TRUE(p.projected_step_ns.has_value());
  EXPECT_EQ(*p.projected_step_ns, 5'000);
}

// Replayed gains (findings/replayed_gains.h) count once, by the replay of
// all of them together; the other findings of their groups count through
// it (a pseudo-overlap beside a replayed exposed-communication), the rest
// as before.
TEST(GainProjection, ReplayedFindingsCountOnceByTheirJointReplay) {
  Finding exposed = Gain("exposed-communication", 10.0);
  exposed.gain_replayed = true;
  Finding chain = Gain("unfused-rmsnorm", 5.0);
  chain.gain_replayed = true;
  const std::vector<Finding> findings = {exposed, chain, Gain("pseudo-overlap", 8.0),
                                         Gain("host-bound", 20.0)};
  const GainProjection p = ProjectGains(findings, 100'000'000, 12.0);
  EXPECT_EQ(p.replayed_findings, 2);
  ASSERT_TRUE(p.replayed_gain_pct.has_value());
  EXPECT_DOUBLE_EQ(*p.replayed_gain_pct, 12.0);
  EXPECT_EQ(p.groups, 2);  // host-bound, the replay
  EXPECT_NEAR(p.combined_gain_pct, 100 * (1 - 0.8 * 0.88), 1e-9);
  EXPECT_EQ(p.projected_step_ns, 70'400'000);
  // Without the joint replay the same findings combine as estimates.
  const GainProjection estimated = ProjectGains(findings, 100'000'000);
  EXPECT_EQ(estimated.replayed_findings, 0);
  EXPECT_FALSE(estimated.replayed_gain_pct.has_value());
  EXPECT_EQ(estimated.groups, 3);
  EXPECT_NEAR(estimated.combined_gain_pct, 100 * (1 - 0.9 * 0.95 * 0.8), 1e-9);
}

}  // namespace
}  // namespace trainscope::analysis
