// A rank that reaches every step late makes the others wait at the step's
// first collective (the methodology's 302 ms barrier). Planted here in
// collective timings written for this test (not by synth): 4 to 64 ranks,
// one rank 5% to 20% of the step late, is named as the straggler; a clean
// twin with random arrival skew names none.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "analysis/cluster/straggler.h"
#include "analysis/common/findings_catalog.h"
#include "analysis/findings/cluster_findings.h"
#include "finding_lookup.h"
#include "straggler_cluster.h"
#include "time_units.h"

namespace trainscope::analysis {
namespace {

using testing::FindingWithId;

using testing::kMs;
constexpr int64_t kStepNs = 200 * kMs;
constexpr int kSteps = 4;
constexpr int kCollectives = 12;

// |late_rank| arrives |late_ns| after the others at each step's first
// collective; every rank's arrival also has |skew_ns| of uniform random
// skew (the clean twin has only that). Later collectives start within
// 50 us of each other and end together.
std::vector<RankComm> Job(int ranks, int late_rank, int64_t late_ns, int64_t skew_ns,
                          uint32_t seed) {
  std::mt19937 rng(seed);
  auto uniform = [&rng](int64_t hi) {
    return hi > 0 ? std::uniform_int_distribution<int64_t>(0, hi)(rng) : 0;
  };
  std::vector<RankComm> job(static_cast<size_t>(ranks));
  for (int r = 0; r < ranks; ++r) job[r].rank = r;
  for (int s = 0; s < kSteps; ++s) {
    const int64_t t0 = 1'000 * kMs + s * (kStepNs + 10 * kMs);
    std::vector<int64_t> arrival(static_cast<size_t>(ranks));
    for (int r = 0; r < ranks; ++r) {
      arrival[r] = t0 + uniform(200'000) + uniform(skew_ns) + (r == late_rank ? late_ns : 0);
    }
    const int64_t first_end = *std::max_element(arrival.begin(), arrival.end()) + 2 * kMs;
    for (int r = 0; r < ranks; ++r) {
      RankComm& rank = job[r];
      rank.steps.push_back(RankStepComm{s, arrival[r], t0 + kStepNs});
      rank.ops.push_back(CommInstance{"allreduce_0", CollectiveType::kAllReduce, s, arrival[r],
                                      first_end - arrival[r]});
    }
    for (int k = 1; k < kCollectives; ++k) {
      const int64_t base = first_end + 10 * kMs * k;
      std::vector<int64_t> start(static_cast<size_t>(ranks));
      for (int r = 0; r < ranks; ++r) start[r] = base + uniform(50'000);
      const int64_t end = *std::max_element(start.begin(), start.end()) + 3 * kMs;
      for (int r = 0; r < ranks; ++r) {
        job[r].ops.push_back(CommInstance{"allgather_" + std::to_string(k),
                                          CollectiveType::kAllGather, s, start[r], end - start[r]});
      }
    }
  }
  return job;
}

struct Verdict {
  std::vector<int32_t> stragglers;
  std::vector<int32_t> late_start;  // method (c)
  int64_t steps_tested = 0;         // by method (c)
  std::vector<Finding> findings;
};

Verdict Analyse(const std::vector<RankComm>& job) {
  const FindingCatalog& catalog = FindingCatalog::Builtin();
  const ClusterAnalysis cluster = testing::StragglerCluster(job, kStepNs, kCollectives);
  Verdict v;
  v.stragglers = cluster.straggler_ranks;
  v.late_start = cluster.by_late_start.ranks;
  v.steps_tested = cluster.by_late_start.instances_tested;
  AddClusterFindings(cluster, &v.findings, catalog);
  return v;
}

TEST(LateRank, APlantedLateRankIsNamedFrom4To64Ranks) {
  for (int ranks : {4, 8, 16, 64}) {
    for (double late_pct : {5.5, 10.0, 20.0}) {
      SCOPED_TRACE(::testing::Message() << ranks << " ranks, " << late_pct << "% late");
      const int late_rank = ranks / 2 - 1;
      const auto late_ns = static_cast<int64_t>(late_pct / 100 * kStepNs);
      const Verdict v = Analyse(Job(ranks, late_rank, late_ns, 0, 7));
      EXPECT_EQ(v.stragglers, std::vector<int32_t>{late_rank});
      const Finding* f = FindingWithId(v.findings, "straggler-rank");
      ASSERT_NE(f, nullptr);
      EXPECT_EQ(f->ranks, std::vector<int32_t>{late_rank});
      // The others wait for it once per step: the gain is about its lateness.
      EXPECT_GE(f->estimated_gain_pct, late_pct * 0.9);
      EXPECT_NE(f->evidence.find(fmt::format("late-start flags [{}]", late_rank)),
                std::string::npos)
          << f->evidence;
    }
  }
}

// Below the threshold (straggler_start_late_pct, 5% of the step) the late
// start is the skew finding's business, not a straggler's.
TEST(LateRank, LatenessBelowTheThresholdIsNotALateStart) {
  const Verdict v = Analyse(Job(8, 3, kStepNs * 3 / 100, 0, 7));
  EXPECT_EQ(v.steps_tested, kSteps);
  EXPECT_TRUE(v.late_start.empty());
}

// Method (e): data-parallel peers do the same work, so one rank computing
// 12% of the step longer than its stage's others is the one they wait for;
// two pipeline stages of different cost are stage-imbalance's, not a
// straggler.
TEST(ComputeImbalance, TheSlowRankOfItsStageIsNamed) {
  auto analyse = [](const std::vector<RankComputation>& computation) {
    ClusterAnalysis cluster;
    cluster.present = true;
    cluster.mean_step_time_ns = static_cast<double>(kStepNs);
    for (const RankComputation& r : computation) {
      RankClusterStats row;
      row.rank = r.rank;
      cluster.per_rank.push_back(row);
    }
    DetectStragglers({}, StragglerOptionsOf(FindingCatalog::Builtin().thresholds()), &cluster,
                     computation);
    return cluster;
  };
  std::vector<RankComputation> dp;
  for (int32_t r = 0; r < 8; ++r) dp.push_back({r, 0, 100 * kMs + r * 100'000});
  dp[5].computation_ns = 124 * kMs;  // 12% of the 200 ms step above the others
  const ClusterAnalysis slow = analyse(dp);
  EXPECT_EQ(slow.by_compute.ranks, std::vector<int32_t>{5});
  EXPECT_EQ(slow.straggler_ranks, std::vector<int32_t>{5});
  EXPECT_NEAR(static_cast<double>(slow.per_rank[5].excess_computation_ns), 23.65e6, 1e5);
  std::vector<Finding> findings;
  AddClusterFindings(slow, &findings);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_NE(findings[0].evidence.find("compute-imbalance flags [5]"), std::string::npos)
      << findings[0].evidence;

  // Two stages of four ranks, the second 30% slower: no straggler.
  std::vector<RankComputation> pp;
  for (int32_t r = 0; r < 8; ++r) pp.push_back({r, r / 4, (r < 4 ? 100 : 130) * kMs + r * 100'000});
  EXPECT_TRUE(analyse(pp).by_compute.ranks.empty());
  // 3% above the others: not enough to name.
  dp[5].computation_ns = 106 * kMs;
  EXPECT_TRUE(analyse(dp).by_compute.ranks.empty());
}

TEST(LateRank, ACleanTwinWithRandomSkewNamesNoStraggler) {
  int named = 0;
  for (int ranks : {4, 8, 16, 64}) {
    for (uint32_t seed = 1; seed <= 10; ++seed) {
      // Every rank's arrival spread over up to 10% of the step, at random.
      const Verdict v = Analyse(Job(ranks, -1, 0, kStepNs / 10, seed));
      EXPECT_EQ(v.steps_tested, kSteps);  // every step was looked at
      if (!v.stragglers.empty()) ++named;
      EXPECT_EQ(FindingWithId(v.findings, "straggler-rank"), nullptr)
          << ranks << " ranks, seed " << seed;
    }
  }
  EXPECT_EQ(named, 0);
}

}  // namespace
}  // namespace trainscope::analysis
