// What-if by replay (analysis/cluster/step_replay.h) on a step small enough
// to re-time by hand (tests/two_rank_step.h: two ranks, one blocking
// all-reduce, 21 ms).
#include "analysis/cluster/step_replay.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "two_rank_step.h"

namespace trainscope::analysis {
namespace {

using testing::kMs;
using testing::TwoRanksOneAllReduce;

StepReplay Build(const std::vector<RankComm>& comm) {
  std::string why;
  std::optional<StepReplay> replay = StepReplay::Build(comm, 1, &why);
  EXPECT_TRUE(replay.has_value()) << why;
  return replay ? *replay : *StepReplay::Build(TwoRanksOneAllReduce(), 1, &why);
}

TEST(StepReplay, UnchangedItReproducesTheMeasuredSpan) {
  EXPECT_EQ(Build(TwoRanksOneAllReduce()).replayed_ns(), 21 * kMs);
}

// Saved compute comes out of each window in proportion to its compute: on
// rank 1 (the last arrival and the last to end) 2 ms of its 20 ms of
// compute: 1.4 ms before the all-reduce, 0.6 ms after: the span loses all
// of it. The same saving on rank 0, which waits anyway, changes nothing.
TEST(StepReplay, ASavingCountsOnlyWhereTheStepWaitsForIt) {
  const StepReplay replay = Build(TwoRanksOneAllReduce());
  EXPECT_EQ(replay.Predict({.compute_saved_ns = {{1, 2 * kMs}}}), 19 * kMs);
  EXPECT_EQ(replay.Predict({.compute_saved_ns = {{0, 2 * kMs}}}), 21 * kMs);
  // More than the rank computes: all of its compute, no further.
  // (what is left: the transfer)
  EXPECT_EQ(replay.Predict({.compute_saved_ns = {{0, 99 * kMs}, {1, 99 * kMs}}}), kMs);
}

// At its peer's pace rank 1 arrives at 10 ms and ends 4 ms after the
// all-reduce (at 11 ms): 14 ms.
TEST(StepReplay, AStragglerAtItsPeersPace) {
  EXPECT_EQ(Build(TwoRanksOneAllReduce()).Predict({.at_peers_pace = {1}}), 14 * kMs);
}

// Rank 1 starts 3 ms late (at 4 ms) with the same 11 ms of work: starting
// with rank 0 it arrives at 12 ms; bound to within 1 ms, at 13 ms.
TEST(StepReplay, StartsBoundWithinASpread) {
  const StepReplay replay = Build(TwoRanksOneAllReduce(4 * kMs));
  EXPECT_EQ(replay.replayed_ns(), 21 * kMs);
  EXPECT_EQ(replay.Predict({.start_spread_ns = 0}), 18 * kMs);
  EXPECT_EQ(replay.Predict({.start_spread_ns = kMs}), 19 * kMs);
  // Its peer's pace includes its start.
  EXPECT_EQ(replay.Predict({.at_peers_pace = {1}}), 14 * kMs);
}

TEST(StepReplay, TransfersHiddenByType) {
  const StepReplay replay = Build(TwoRanksOneAllReduce());
  EXPECT_EQ(replay.Predict({.transfers_hidden = true}), 20 * kMs);
  EXPECT_EQ(replay.Predict({.transfers_hidden_of = {CollectiveType::kAllGather}}), 21 * kMs);
  EXPECT_EQ(replay.Predict({.transfers_hidden_of = {CollectiveType::kAllReduce}}), 20 * kMs);
  // A share of it kept: 0.4 of the 1 ms transfer.
  EXPECT_EQ(replay.Predict({.transfer_kept_share = 0.4}), 20 * kMs + 400'000);
}

// Changes replayed together: the straggler at its peer's pace, the
// transfer hidden and 2 ms saved on rank 0 (which then waits for rank 1):
// 13 ms, not the measured span less the sum of the separate savings.
TEST(StepReplay, ChangesCombineIntoOneReplay) {
  ReplayChange all{.at_peers_pace = {1}};
  all.Add({.transfers_hidden = true});
  all.Add({.at_peers_pace = {1}, .compute_saved_ns = {{0, kMs}}});
  all.Add({.compute_saved_ns = {{0, kMs}}});
  EXPECT_EQ(all.at_peers_pace, std::vector<int32_t>{1});
  EXPECT_EQ(all.compute_saved_ns.at(0), 2 * kMs);
  EXPECT_FALSE(all.empty());
  EXPECT_TRUE(ReplayChange{}.empty());
  const StepReplay replay = Build(TwoRanksOneAllReduce());
  EXPECT_EQ(replay.Predict(all), 13 * kMs);
}

// A link at its transport's pace: the collectives both its ranks take part
// in keep that share of their transfer; a link no collective runs over
// cannot be replayed.
TEST(StepReplay, ASlowLinkAtItsTransportsPace) {
  const StepReplay replay = Build(TwoRanksOneAllReduce());
  EXPECT_EQ(replay.Predict({.links_sped_up = {{1, 0, 0.4}}}), 20 * kMs + 400'000);
  // Two records of the link (both directions): the smaller share, once.
  EXPECT_EQ(replay.Predict({.links_sped_up = {{0, 1, 0.5}, {1, 0, 0.4}}}), 20 * kMs + 400'000);
  EXPECT_FALSE(replay.Predict({.links_sped_up = {{2, 3, 0.1}}}).has_value());
}

// Rank 1 computed 10 of the 14 ms before its arrival; its host launched
// late for 3 ms of the idle: without that idle it arrives at 12 ms, the
// all-reduce ends at 13 ms and rank 1 at 19 ms: 18 ms. Its data loader
// (3 ms before its late start at 4 ms) removed, it starts with rank 0.
TEST(StepReplay, TheHostsIdleRemoved) {
  std::vector<RankComm> comm = TwoRanksOneAllReduce();
  for (RankComm& rc : comm) rc.host_known = true;
  comm[1].ops[0].compute_before_ns = 10 * kMs;
  comm[1].ops[0].host_idle_before = {.launch_ns = 3 * kMs};
  const StepReplay replay = Build(comm);
  EXPECT_EQ(replay.replayed_ns(), 21 * kMs);
  EXPECT_EQ(replay.Predict({.host_idle_removed = {{1, HostIdleKind::kLaunch}}}), 18 * kMs);
  EXPECT_EQ(replay.Predict({.host_idle_removed = {{1, HostIdleKind::kDataLoader}}}), 21 * kMs);
  EXPECT_EQ(replay.Predict({.host_idle_removed = {{0, HostIdleKind::kLaunch}}}), 21 * kMs);

  std::vector<RankComm> late = TwoRanksOneAllReduce(4 * kMs);
  for (RankComm& rc : late) rc.host_known = true;
  late[1].steps[0].host_idle_before_start = {{kMs, 4 * kMs, HostIdleKind::kDataLoader}};
  const StepReplay loader = Build(late);
  EXPECT_EQ(loader.Predict({.host_idle_removed = {{1, HostIdleKind::kDataLoader}}}), 18 * kMs);

  // No host trace on the rank: unknown, not "no gain".
  late[1].host_known = false;
  EXPECT_FALSE(
      Build(late).Predict({.host_idle_removed = {{1, HostIdleKind::kDataLoader}}}).has_value());
}

TEST(StepReplay, OneRankIsNoCrossRankReplay) {
  std::vector<RankComm> comm = TwoRanksOneAllReduce();
  comm.pop_back();
  std::string why;
  EXPECT_FALSE(StepReplay::Build(comm, 1, &why).has_value());
  EXPECT_FALSE(why.empty());
}

}  // namespace
}  // namespace trainscope::analysis
