// Clock alignment across hosts (analysis/cluster/clock_alignment.h): a host
// whose clock reads a few ms ahead is recovered from the ends of the
// collectives to within 50 us, and its ranks are then not taken for late
// ones; a rank that really is late stays the straggler. Timings written
// here (not by synth), and a synth job with a planted offset.
#include "analysis/cluster/clock_alignment.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "analysis/job/rank_analysis.h"
#include "straggler_cluster.h"
#include "synth/synth.h"
#include "synth_job.h"
#include "time_units.h"

namespace trainscope::analysis {
namespace {

using testing::kMs;
constexpr int64_t kClockStepNs = 200 * kMs;
constexpr int kClockSteps = 4;
constexpr int kClockCollectives = 12;

struct ClockJobSpec {
  int ranks = 8;
  int ranks_per_host = 4;
  int64_t offset_ns = 0;  // host 1's clock minus host 0's
  int late_rank = -1;     // reaches each step's first collective late
  int64_t late_ns = 0;
  int64_t end_jitter_ns = 0;  // each rank reads each end up to this late
};

// Every rank arrives within 200 us at each step's first all-reduce (the late
// rank |late_ns| later) and within 50 us at eleven all-gathers; each
// collective ends at one true moment on all ranks (plus |end_jitter_ns|).
// The ranks of host 1 write every time |offset_ns| later.
std::vector<RankComm> ClockJob(const ClockJobSpec& spec, uint32_t seed) {
  std::mt19937 rng(seed);
  auto uniform = [&rng](int64_t hi) {
    return hi > 0 ? std::uniform_int_distribution<int64_t>(0, hi)(rng) : 0;
  };
  std::vector<RankComm> job(static_cast<size_t>(spec.ranks));
  for (int r = 0; r < spec.ranks; ++r) job[r].rank = r;
  auto clock = [&spec](int rank) { return rank / spec.ranks_per_host == 1 ? spec.offset_ns : 0; };
  for (int s = 0; s < kClockSteps; ++s) {
    const int64_t t0 = 1'000 * kMs + s * (kClockStepNs + 10 * kMs);
    std::vector<int64_t> arrival(static_cast<size_t>(spec.ranks));
    for (int r = 0; r < spec.ranks; ++r)
      arrival[r] = t0 + uniform(200'000) + (r == spec.late_rank ? spec.late_ns : 0);
    const int64_t first_end = *std::max_element(arrival.begin(), arrival.end()) + 2 * kMs;
    for (int r = 0; r < spec.ranks; ++r) {
      const int64_t end = first_end + uniform(spec.end_jitter_ns);
      job[r].steps.push_back(RankStepComm{s, arrival[r] + clock(r), t0 + kClockStepNs + clock(r)});
      job[r].ops.push_back(CommInstance{"allreduce_0", CollectiveType::kAllReduce, s,
                                        arrival[r] + clock(r), end - arrival[r]});
    }
    for (int k = 1; k < kClockCollectives; ++k) {
      const int64_t base = first_end + 10 * kMs * k;
      std::vector<int64_t> start(static_cast<size_t>(spec.ranks));
      for (int r = 0; r < spec.ranks; ++r) start[r] = base + uniform(50'000);
      const int64_t end = *std::max_element(start.begin(), start.end()) + 3 * kMs;
      for (int r = 0; r < spec.ranks; ++r) {
        const int64_t seen_end = end + uniform(spec.end_jitter_ns);
        job[r].ops.push_back(CommInstance{"allgather_" + std::to_string(k),
                                          CollectiveType::kAllGather, s, start[r] + clock(r),
                                          seen_end - start[r]});
      }
    }
  }
  return job;
}

std::vector<std::string> TwoHosts(int ranks, int per_host) {
  std::vector<std::string> hosts;
  for (int r = 0; r < ranks; ++r) hosts.push_back(r / per_host == 0 ? "node-a" : "node-b");
  return hosts;
}

std::vector<int32_t> ClockStragglers(const std::vector<RankComm>& job) {
  return testing::StragglerCluster(job, kClockStepNs, kClockCollectives).straggler_ranks;
}

TEST(HostOfProfilePath, ReadsTheHostTheProfilerNamedItsOutputAfter) {
  EXPECT_EQ(HostOfProfilePath("/jobs/run3/node-7.cluster_41200_20251127203437000_ascend_pt"),
            "node-7.cluster");
  EXPECT_EQ(HostOfProfilePath("/jobs/a_b_12_20251127203437000_ascend_pt/"), "a_b");
  EXPECT_EQ(HostOfProfilePath("traces/gpu-host3_2281.1694128201556.pt.trace.json.gz"), "gpu-host3");
  EXPECT_EQ(HostOfProfilePath("gpu-host3_2281.1694128201556.pt.trace.json"), "gpu-host3");
  // A rank's file under its host's directory still names the directory.
  EXPECT_EQ(HostOfProfilePath("/x/h1_77_20250101000000000_ascend_pt/ASCEND_PROFILER_OUTPUT"), "h1");
  // A worker name that only looks like {host}_{pid} reads as one: the
  // significance test keeps such a split from moving anything (below).
  EXPECT_EQ(HostOfProfilePath("worker1_step_12.1694128201556.pt.trace.json.gz"), "worker1_step");
  // Names that say nothing of a host.
  for (const char* path : {"rank0_ascend_pt", "synth_rank3_20251127203437000_ascend_pt",
                           "rank0.json.gz", "_12_20250101000000000_ascend_pt", ""}) {
    EXPECT_EQ(HostOfProfilePath(path), "") << path;
  }
}

TEST(ClockAlignment, APlantedHostOffsetIsRecoveredWithin50Us) {
  for (int64_t offset : {int64_t{3'700'000}, int64_t{-2'500'000}, int64_t{40'000'000}}) {
    SCOPED_TRACE(offset);
    ClockJobSpec spec;
    spec.offset_ns = offset;
    spec.end_jitter_ns = 20'000;  // ends read up to 20 us apart
    std::vector<RankComm> job = ClockJob(spec, 11);
    const ClockAlignment clock = AlignClocks(TwoHosts(8, 4), &job);
    ASSERT_TRUE(clock.estimated) << clock.note;
    EXPECT_TRUE(clock.applied);
    EXPECT_TRUE(clock.hosts[1].applied);
    ASSERT_EQ(clock.hosts.size(), 2u);
    EXPECT_EQ(clock.reference_host, "node-a");
    ASSERT_TRUE(clock.hosts[1].offset_ns.has_value());
    EXPECT_NEAR(static_cast<double>(*clock.hosts[1].offset_ns), static_cast<double>(offset),
                50'000);
    EXPECT_EQ(clock.hosts[1].instances, kClockSteps * kClockCollectives);
    ASSERT_TRUE(clock.end_spread_after_ns && clock.end_spread_before_ns);
    EXPECT_LE(*clock.end_spread_after_ns, 50'000);
    EXPECT_GE(*clock.end_spread_before_ns, std::abs(offset) - 50'000);
    // The times moved: host 1's first collective now ends with host 0's.
    const CommInstance& a = job[0].ops[1];
    const CommInstance& b = job[5].ops[1];
    EXPECT_NEAR(static_cast<double>(a.start_ns + a.duration_ns),
                static_cast<double>(b.start_ns + b.duration_ns), 50'000);
  }
}

// A host 12 ms (6% of the step) ahead, holding one rank of eight, makes that
// rank look late at every step start; aligned, nobody is. A really late rank
// on a shifted host of four stays the one straggler.
TEST(ClockAlignment, AlignedHostsAreNotStragglersButALateRankStillIs) {
  ClockJobSpec spec;
  spec.ranks_per_host = 7;  // host 1: rank 7
  spec.offset_ns = 12 * kMs;
  std::vector<RankComm> job = ClockJob(spec, 5);
  EXPECT_EQ(ClockStragglers(job), std::vector<int32_t>{7});
  const ClockAlignment clock = AlignClocks(TwoHosts(8, 7), &job);
  ASSERT_TRUE(clock.applied) << clock.note;
  EXPECT_TRUE(ClockStragglers(job).empty());

  spec.ranks_per_host = 4;
  spec.late_rank = 6;
  spec.late_ns = 20 * kMs;  // 10% of the step
  job = ClockJob(spec, 5);
  AlignClocks(TwoHosts(8, 4), &job);
  EXPECT_EQ(ClockStragglers(job), std::vector<int32_t>{6});
}

// Ranks split over "hosts" that share one clock (a name that only looks
// like {host}_{pid}): the offsets measured are the ends' jitter, not
// significant, and nothing moves.
TEST(ClockAlignment, AnOffsetWithinTheEndsJitterIsNotApplied) {
  ClockJobSpec spec;
  spec.end_jitter_ns = 20'000;
  const std::vector<RankComm> original = ClockJob(spec, 9);
  std::vector<RankComm> job = original;
  const ClockAlignment clock = AlignClocks(TwoHosts(8, 4), &job);
  ASSERT_TRUE(clock.estimated);
  EXPECT_FALSE(clock.applied);
  ASSERT_TRUE(clock.hosts[1].offset_ns.has_value());
  EXPECT_LT(std::abs(*clock.hosts[1].offset_ns), 20'000);
  EXPECT_FALSE(clock.hosts[1].applied);
  for (size_t r = 0; r < job.size(); ++r)
    EXPECT_EQ(job[r].ops[0].start_ns, original[r].ops[0].start_ns);
}

TEST(ClockAlignment, UnknownOrSingleHostsMoveNothing) {
  ClockJobSpec spec;
  spec.offset_ns = 3 * kMs;
  const std::vector<RankComm> original = ClockJob(spec, 3);
  std::vector<RankComm> job = original;
  std::vector<std::string> hosts = TwoHosts(8, 4);
  hosts[2].clear();
  ClockAlignment clock = AlignClocks(hosts, &job);
  EXPECT_FALSE(clock.estimated);
  EXPECT_FALSE(clock.applied);
  EXPECT_NE(clock.note.find("rank 2"), std::string::npos) << clock.note;
  EXPECT_EQ(job[5].ops[0].start_ns, original[5].ops[0].start_ns);
  ASSERT_TRUE(clock.end_spread_before_ns.has_value());
  EXPECT_FALSE(clock.end_spread_after_ns.has_value());

  clock = AlignClocks(std::vector<std::string>(8, "one-host"), &job);
  EXPECT_FALSE(clock.estimated);
  EXPECT_NE(clock.note.find("one host"), std::string::npos) << clock.note;
  EXPECT_EQ(job[5].ops[0].start_ns, original[5].ops[0].start_ns);
}

// End to end on synth: 8 ranks on two hosts, host 1 +3.7 ms; the offset is
// recovered, the stragglers are those of the same job without the offset
// (none), and a planted late rank is still named.
TEST(ClockAlignment, SynthHostOffsetIsRecoveredAndNamesNoStraggler) {
  auto analyse = [](const synth::SynthOptions& options) {
    auto job = testing::AnalyzeSynthJob(options, "clock");
    EXPECT_TRUE(job.ok()) << job.status().message();
    return job.ok() ? std::move(*job) : JobAnalysis{};
  };
  synth::SynthOptions o;
  o.ranks = 8;
  o.layers = 2;
  o.steps = 3;
  o.hosts = 2;
  o = synth::AllFused(o);
  const JobAnalysis clean = analyse(o);
  o.clock_offset_host = 1;
  o.clock_offset_ms = 3.7;
  const JobAnalysis shifted = analyse(o);
  const ClockAlignment& clock = shifted.cluster.clock;
  ASSERT_TRUE(clock.estimated) << clock.note;
  ASSERT_EQ(clock.hosts.size(), 2u);
  EXPECT_EQ(clock.hosts[0].ranks, (std::vector<int32_t>{0, 1, 2, 3}));
  ASSERT_TRUE(clock.hosts[1].offset_ns.has_value());
  EXPECT_NEAR(static_cast<double>(*clock.hosts[1].offset_ns), 3.7e6, 50'000);
  EXPECT_EQ(shifted.cluster.straggler_ranks, clean.cluster.straggler_ranks);
  EXPECT_TRUE(shifted.cluster.straggler_ranks.empty());
  EXPECT_NEAR(static_cast<double>(shifted.cluster.first_kernel_skew_ns),
              static_cast<double>(clean.cluster.first_kernel_skew_ns), 50'000);

  o.late_rank = 5;
  o.late_ms = 25;
  const JobAnalysis late = analyse(o);
  EXPECT_EQ(late.cluster.straggler_ranks, std::vector<int32_t>{5});
}

}  // namespace
}  // namespace trainscope::analysis
