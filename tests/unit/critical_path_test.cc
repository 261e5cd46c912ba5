// The cross-rank critical path (analysis/cluster/critical_path.h) on synth
// jobs whose cause is planted: a clean job's path is compute; a late rank's
// late start opens it; a straggler's compute carries it. Every job's path
// charges its span once.
#include "analysis/cluster/critical_path.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/job/rank_analysis.h"
#include "synth/synth.h"
#include "synth_job.h"

namespace trainscope::analysis {
namespace {

CriticalPath PathOfSynthJob(const synth::SynthOptions& options) {
  auto job = testing::AnalyzeSynthJob(options, "critical_path");
  EXPECT_TRUE(job.ok()) << job.status().message();
  return job.ok() ? job->cluster.critical_path : CriticalPath{};
}

synth::SynthOptions CleanPathJob() {
  synth::SynthOptions o;
  o.ranks = 8;
  o.layers = 2;
  o.steps = 3;
  return synth::AllFused(o);
}

int64_t PathTimeOnRank(const CriticalPath& path, int32_t rank) {
  for (const auto& [r, ns] : path.by_rank) {
    if (r == rank) return ns;
  }
  return 0;
}

// The segments follow each other without gap or overlap and their
// categories add up to the span.
void ExpectChargedOnce(const CriticalPath& path) {
  ASSERT_TRUE(path.computed) << path.note;
  ASSERT_FALSE(path.segments.empty());
  EXPECT_EQ(path.segments.front().start_ns, path.start_ns);
  EXPECT_EQ(path.segments.back().end_ns, path.end_ns);
  for (size_t i = 1; i < path.segments.size(); ++i)
    EXPECT_EQ(path.segments[i].start_ns, path.segments[i - 1].end_ns) << i;
  EXPECT_EQ(
      path.compute_ns + path.idle_ns + path.transfer_ns + path.late_start_ns + path.host.total(),
      path.end_ns - path.start_ns);
  for (const PathSegment& s : path.segments)
    EXPECT_LE(s.compute_ns + s.host.total(), s.duration_ns());
  int64_t by_rank = 0;
  for (const auto& [rank, ns] : path.by_rank) by_rank += ns;
  EXPECT_EQ(by_rank, path.end_ns - path.start_ns);
}

TEST(CriticalPath, ACleanJobsPathIsItsCompute) {
  const CriticalPath path = PathOfSynthJob(CleanPathJob());
  ExpectChargedOnce(path);
  const auto span = static_cast<double>(path.end_ns - path.start_ns);
  EXPECT_GT(static_cast<double>(path.compute_ns), 0.9 * span);
  EXPECT_LT(static_cast<double>(path.late_start_ns), 0.01 * span);
  EXPECT_GT(path.blocking_collectives, 0);
}

TEST(CriticalPath, ALateRanksLateStartOpensThePath) {
  synth::SynthOptions o = CleanPathJob();
  o.late_rank = 5;
  o.late_ms = 25;
  const CriticalPath path = PathOfSynthJob(o);
  ExpectChargedOnce(path);
  ASSERT_FALSE(path.segments.empty());
  EXPECT_EQ(path.segments.front().kind, PathSegmentKind::kLateStart);
  EXPECT_EQ(path.segments.front().rank, 5);
  EXPECT_NEAR(static_cast<double>(path.late_start_ns), 25e6, 1e6);
  // Without a host trace the late start's cause is not known.
  EXPECT_FALSE(path.host_known);
  EXPECT_EQ(path.host.total(), 0);
}

// With the host recorded (trace_view.json), the late rank's late start is
// its data loader (synth plants the lateness there), and a clean job's path
// has almost none.
TEST(CriticalPath, ALateRanksDataLoaderOpensThePath) {
  synth::SynthOptions o = CleanPathJob();
  o.trace_view = true;
  const CriticalPath clean = PathOfSynthJob(o);
  ExpectChargedOnce(clean);
  EXPECT_TRUE(clean.host_known);
  const auto clean_span = static_cast<double>(clean.end_ns - clean.start_ns);
  EXPECT_LT(static_cast<double>(clean.host.data_loader_ns), 0.01 * clean_span);

  o.late_rank = 5;
  o.late_ms = 25;
  const CriticalPath path = PathOfSynthJob(o);
  ExpectChargedOnce(path);
  EXPECT_TRUE(path.host_known);
  ASSERT_FALSE(path.segments.empty());
  const PathSegment& first = path.segments.front();
  EXPECT_EQ(first.kind, PathSegmentKind::kLateStart);
  EXPECT_EQ(first.rank, 5);
  EXPECT_NEAR(static_cast<double>(first.host.data_loader_ns), 25e6, 1e6);
  EXPECT_GT(static_cast<double>(first.host.data_loader_ns),
            0.9 * static_cast<double>(first.duration_ns()));
  EXPECT_EQ(path.host.data_loader_ns, first.host.data_loader_ns);
  // The others are charged as waiting, mostly for rank 5, about its 25 ms
  // (rank 5 itself waits only where another rank comes last, briefly).
  int others = 0;
  for (const CriticalPath::RankWait& w : path.waits) {
    if (w.rank == 5) {
      EXPECT_LT(w.waited_ns, 5'000'000);
      continue;
    }
    ++others;
    EXPECT_EQ(w.mostly_for, 5) << w.rank;
    EXPECT_NEAR(static_cast<double>(w.mostly_for_ns), 25e6, 1e6) << w.rank;
    EXPECT_GE(w.waited_ns, w.mostly_for_ns);
  }
  EXPECT_EQ(others, 7);
}

// A host-bound rank (its host issues a kernel at most every 200 us, traced):
// the path runs through its work, and its launches' idle is charged as
// launch, several times the clean job's.
TEST(CriticalPath, AHostBoundRanksLaunchesCarryThePath) {
  synth::SynthOptions o = CleanPathJob();
  o.trace_view = true;
  const CriticalPath clean = PathOfSynthJob(o);
  o.host_bound_rank = 3;
  const CriticalPath path = PathOfSynthJob(o);
  ExpectChargedOnce(path);
  ASSERT_FALSE(path.by_rank.empty());
  EXPECT_EQ(path.by_rank.front().first, 3);
  const auto span = static_cast<double>(path.end_ns - path.start_ns);
  const auto clean_span = static_cast<double>(clean.end_ns - clean.start_ns);
  EXPECT_GT(static_cast<double>(path.host.launch_ns) / span,
            3 * static_cast<double>(clean.host.launch_ns) / clean_span);
}

// A slow link (ranks 0 and 1 at 10% bandwidth): every world collective runs
// at its pace, and the path's transfers grow several times the clean
// job's share.
TEST(CriticalPath, ASlowLinksTransfersCarryThePath) {
  const CriticalPath clean = PathOfSynthJob(CleanPathJob());
  synth::SynthOptions o = CleanPathJob();
  o.slow_link = true;
  const CriticalPath path = PathOfSynthJob(o);
  ExpectChargedOnce(path);
  const auto span = static_cast<double>(path.end_ns - path.start_ns);
  const auto clean_span = static_cast<double>(clean.end_ns - clean.start_ns);
  EXPECT_GT(static_cast<double>(path.transfer_ns) / span,
            3 * static_cast<double>(clean.transfer_ns) / clean_span);
}

// Pipeline stages (GPipe, 2 stages): a stage waits for its neighbour's
// activations and gradients, so the path crosses between the stages
// through their send/receive pairs.
TEST(CriticalPath, PipelineBubblesRunThroughSendRecv) {
  synth::SynthOptions o = CleanPathJob();
  o.ranks = 4;
  o.layers = 4;
  o.pp = 2;
  const CriticalPath path = PathOfSynthJob(o);
  ExpectChargedOnce(path);
  int p2p = 0;
  for (const PathSegment& s : path.segments) {
    if (s.kind == PathSegmentKind::kTransfer && s.collective.starts_with("p2p")) ++p2p;
  }
  EXPECT_GT(p2p, 0);
  EXPECT_GE(path.by_rank.size(), 2u);
}

TEST(CriticalPath, AStragglersComputeCarriesThePath) {
  synth::SynthOptions o = CleanPathJob();
  o.straggler_rank = 3;
  const CriticalPath path = PathOfSynthJob(o);
  ExpectChargedOnce(path);
  ASSERT_FALSE(path.by_rank.empty());
  EXPECT_EQ(path.by_rank.front().first, 3);
  EXPECT_GT(static_cast<double>(PathTimeOnRank(path, 3)),
            0.8 * static_cast<double>(path.end_ns - path.start_ns));
}

// Two ranks: rank 1 arrives 5 ms late at the one blocking all-reduce; the
// path is rank 1's work up to it, the transfer, then the last rank's tail.
TEST(CriticalPath, TheLastArrivalCarriesThePathThroughABlockingCollective) {
  std::vector<RankComm> comm(2);
  for (int r = 0; r < 2; ++r) {
    comm[r].rank = r;
    const int64_t arrival = r == 0 ? 10'000'000 : 15'000'000;
    CommInstance op{"ar#0", CollectiveType::kAllReduce, 1, arrival, 16'000'000 - arrival};
    op.compute_before_ns = arrival - 1'000'000;  // busy from 1 ms to its arrival
    op.compute_during_ns = 0;
    comm[r].ops.push_back(op);
    RankStepComm step{1, 1'000'000, 20'000'000 + r * 2'000'000};
    step.compute_after_last_ns = step.last_end_ns - 16'000'000;
    comm[r].steps.push_back(step);
  }
  const CriticalPath path = CrossRankCriticalPath(comm, 1);
  ExpectChargedOnce(path);
  ASSERT_EQ(path.segments.size(), 3u);
  EXPECT_EQ(path.segments[0].kind, PathSegmentKind::kWork);
  EXPECT_EQ(path.segments[0].rank, 1);
  EXPECT_EQ(path.segments[0].duration_ns(), 14'000'000);
  EXPECT_EQ(path.segments[1].kind, PathSegmentKind::kTransfer);
  EXPECT_EQ(path.segments[1].rank, 1);
  EXPECT_EQ(path.segments[1].duration_ns(), 1'000'000);
  EXPECT_EQ(path.segments[1].participants, 2);
  EXPECT_EQ(path.segments[2].rank, 1);  // rank 1 also ends last (22 ms)
  EXPECT_EQ(path.compute_ns, 14'000'000 + 6'000'000);
  EXPECT_EQ(path.blocking_collectives, 1);
  EXPECT_FALSE(path.host_known);

  // Rank 1 computed 10 of the 14 ms before its arrival; its summary charged
  // 1 ms of the window's idle to its data loader and 5 ms to late launches
  // (the summary's window may reach past the segment): the charges fit in
  // the 4 ms of idle the segment has, the loader's first.
  comm[1].host_known = comm[0].host_known = true;
  comm[1].ops[0].compute_before_ns = 10'000'000;
  comm[1].ops[0].host_idle_before = {.data_loader_ns = 1'000'000, .launch_ns = 5'000'000};
  const CriticalPath hosted = CrossRankCriticalPath(comm, 1);
  ExpectChargedOnce(hosted);
  EXPECT_TRUE(hosted.host_known);
  EXPECT_EQ(hosted.segments[0].host.data_loader_ns, 1'000'000);
  EXPECT_EQ(hosted.segments[0].host.launch_ns, 3'000'000);  // the 4 ms left, less the loader's
  EXPECT_EQ(hosted.host.launch_ns, 3'000'000);
  EXPECT_EQ(hosted.idle_ns, 0);
  comm[1].ops[0].compute_before_ns = 14'000'000;
  comm[1].ops[0].host_idle_before = {};

  // Overlapped (compute covered it): not a synchronisation point; the path
  // stays on the rank that ends last.
  for (RankComm& rc : comm) rc.ops[0].compute_during_ns = rc.ops[0].duration_ns;
  const CriticalPath overlapped = CrossRankCriticalPath(comm, 1);
  ExpectChargedOnce(overlapped);
  EXPECT_EQ(overlapped.blocking_collectives, 0);
  ASSERT_FALSE(overlapped.segments.empty());
  EXPECT_EQ(overlapped.segments.back().rank, 1);
}

const CriticalPath::WhatIf* FindWhatIf(const CriticalPath& path, const std::string& prefix) {
  for (const CriticalPath::WhatIf& w : path.what_if) {
    if (w.change.starts_with(prefix)) return &w;
  }
  return nullptr;
}

// The replay re-times the measured graph: unchanged, it gives the measured
// span; removing a planted cause predicts the twin without it (the same
// seed, the cause not planted) within 10% of the step (the measured errors:
// docs/clusters.md §3c).
TEST(CriticalPath, ReplayPredictsTheTwinWithoutThePlantedCause) {
  const CriticalPath clean = PathOfSynthJob(CleanPathJob());
  ASSERT_TRUE(clean.computed);
  const auto twin = static_cast<double>(clean.end_ns - clean.start_ns);
  EXPECT_NEAR(static_cast<double>(clean.replayed_ns), twin, 0.01 * twin);

  synth::SynthOptions late = CleanPathJob();
  late.late_rank = 5;
  late.late_ms = 25;
  const CriticalPath late_path = PathOfSynthJob(late);
  const auto late_span = static_cast<double>(late_path.end_ns - late_path.start_ns);
  EXPECT_NEAR(static_cast<double>(late_path.replayed_ns), late_span, 0.01 * late_span);
  const CriticalPath::WhatIf* starts = FindWhatIf(late_path, "every rank starts with the first");
  ASSERT_NE(starts, nullptr);
  EXPECT_NEAR(static_cast<double>(starts->predicted_ns), twin, 0.1 * twin);

  synth::SynthOptions slow = CleanPathJob();
  slow.straggler_rank = 3;
  const CriticalPath slow_path = PathOfSynthJob(slow);
  const CriticalPath::WhatIf* pace = FindWhatIf(slow_path, "rank 3 works at its peers'");
  ASSERT_NE(pace, nullptr);
  EXPECT_NEAR(static_cast<double>(pace->predicted_ns), twin, 0.1 * twin);
  EXPECT_LT(pace->predicted_ns, slow_path.replayed_ns);
  const CriticalPath::WhatIf* all = FindWhatIf(slow_path, "all of the above");
  ASSERT_NE(all, nullptr);
  EXPECT_LE(all->predicted_ns, pace->predicted_ns);
}

TEST(CriticalPath, OneRankHasNoCrossRankPath) {
  std::vector<RankComm> comm(1);
  comm[0].steps.push_back(RankStepComm{1, 0, 10});
  const CriticalPath path = CrossRankCriticalPath(comm, 1);
  EXPECT_FALSE(path.computed);
  EXPECT_FALSE(path.note.empty());
}

}  // namespace
}  // namespace trainscope::analysis
