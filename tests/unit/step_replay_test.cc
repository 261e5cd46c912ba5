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

TEST(StepReplay, OneRankIsNoCrossRankReplay) {
  std::vector<RankComm> comm = TwoRanksOneAllReduce();
  comm.pop_back();
  std::string why;
  EXPECT_FALSE(StepReplay::Build(comm, 1, &why).has_value());
  EXPECT_FALSE(why.empty());
}

}  // namespace
}  // namespace trainscope::analysis
