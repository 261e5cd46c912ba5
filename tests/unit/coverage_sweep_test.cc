#include "analysis/common/coverage_sweep.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>
#include <vector>

namespace trainscope::analysis {
namespace {

using Lanes = CoverageSweep::Lanes;
constexpr Lanes kA = CoverageSweep::Lane(0);
constexpr Lanes kB = CoverageSweep::Lane(1);
constexpr Lanes kC = CoverageSweep::Lane(2);

struct Work {
  Lanes lanes;
  int64_t start;
  int64_t end;
};

// Every ns of a small range marked with the lanes busy in it.
int64_t CoveredByCells(const std::vector<Work>& work, Lanes any_of, Lanes none_of) {
  std::array<Lanes, 300> busy{};
  for (const Work& w : work) {
    for (int64_t t = std::max<int64_t>(w.start, 0); t < w.end && t < 300; ++t)
      busy[static_cast<size_t>(t)] |= w.lanes;
  }
  int64_t total = 0;
  for (Lanes set : busy) total += ((set & any_of) != 0 && (set & none_of) == 0) ? 1 : 0;
  return total;
}

TEST(CoverageSweep, UnionsAndDifferencesOfAStep) {
  // compute [0,10) [12,20); comm [5,15) (hidden 5..10 and 12..15, exposed
  // 10..12); a copy [30,35) alone.
  CoverageSweep sweep;
  ASSERT_TRUE(sweep.Add(kA, 0, 10));
  ASSERT_TRUE(sweep.Add(kB, 5, 15));
  ASSERT_TRUE(sweep.Add(kA, 12, 20));
  ASSERT_TRUE(sweep.Add(kC, 30, 35));
  EXPECT_EQ(sweep.Covered(kA), 18);
  EXPECT_EQ(sweep.Covered(kB), 10);
  EXPECT_EQ(sweep.Covered(kB, kA), 2);
  EXPECT_EQ(sweep.Covered(kC, kA | kB), 5);
  EXPECT_EQ(sweep.Covered(kA | kB | kC), 25);
}

TEST(CoverageSweep, EmptyAndNegativeIntervalsCoverNothing) {
  CoverageSweep sweep;
  ASSERT_TRUE(sweep.Add(kA, 0, 4));
  ASSERT_TRUE(sweep.Add(kB, 6, 6));
  ASSERT_TRUE(sweep.Add(kB, 7, 3));
  EXPECT_EQ(sweep.Covered(kA | kB), 4);
  EXPECT_EQ(sweep.Covered(kB), 0);
  EXPECT_EQ(CoverageSweep().Covered(kA), 0);
}

TEST(CoverageSweep, RefusesAnIntervalBeforeTheLastStart) {
  CoverageSweep sweep;
  ASSERT_TRUE(sweep.Add(kA, 10, 20));
  EXPECT_FALSE(sweep.Add(kA, 5, 30));
  EXPECT_EQ(sweep.Covered(kA), 10);
  EXPECT_TRUE(sweep.Add(kA, 10, 25));  // an equal start is in order
  EXPECT_EQ(sweep.Covered(kA), 15);
}

TEST(CoverageSweep, AsksMidwayAndGoesOn) {
  CoverageSweep sweep;
  ASSERT_TRUE(sweep.Add(kA, 0, 10));
  EXPECT_EQ(sweep.Covered(kA), 10);
  ASSERT_TRUE(sweep.Add(kB, 8, 12));
  EXPECT_EQ(sweep.Covered(kA), 10);
  EXPECT_EQ(sweep.Covered(kB, kA), 2);
}

// Lane bits above the six are no lane: they cover nothing.
TEST(CoverageSweep, IgnoresBitsAboveTheSixLanes) {
  CoverageSweep sweep;
  ASSERT_TRUE(sweep.Add(static_cast<Lanes>(0xC0 | kA), 0, 10));
  ASSERT_TRUE(sweep.Add(0xC0, 20, 30));
  EXPECT_EQ(sweep.Covered(kA), 10);
  EXPECT_EQ(sweep.Covered(0xFF), 10);
}

// Against the per-ns count on random work: lanes of one interval may be
// several (a collective is communication and p2p), combinations of all.
TEST(CoverageSweep, MatchesCellsOnRandomWork) {
  std::mt19937 rng(11);
  for (int round = 0; round < 300; ++round) {
    std::vector<Work> work(1 + rng() % 40);
    for (Work& w : work) {
      w.lanes = static_cast<Lanes>(1 + rng() % 63);
      w.start = static_cast<int64_t>(rng() % 250);
      w.end = w.start + static_cast<int64_t>(rng() % 40) - 5;
    }
    std::sort(work.begin(), work.end(),
              [](const Work& a, const Work& b) { return a.start < b.start; });
    CoverageSweep sweep;
    for (const Work& w : work) ASSERT_TRUE(sweep.Add(w.lanes, w.start, w.end));
    for (Lanes any_of = 1; any_of < 64; ++any_of) {
      for (Lanes none_of : {Lanes{0}, kA, static_cast<Lanes>(kB | kC), Lanes{0x30}}) {
        if ((any_of & none_of) == any_of) continue;
        ASSERT_EQ(sweep.Covered(any_of, none_of), CoveredByCells(work, any_of, none_of))
            << "round " << round << " any_of " << int{any_of} << " none_of " << int{none_of};
      }
    }
  }
}

TEST(RowsByStart, KeepsSortedRowsAndSortsOthers) {
  const std::vector<int64_t> start{5, 1, 3, 3};
  std::vector<uint32_t> storage;
  const std::vector<uint32_t> in_order{1, 2, 3, 0};
  const model::RowSet same = RowsByStart(start, in_order, &storage);
  EXPECT_EQ(std::vector<uint32_t>(same.begin(), same.end()), in_order);
  EXPECT_TRUE(storage.empty());
  const std::vector<uint32_t> shuffled{0, 3, 1, 2};
  const model::RowSet sorted = RowsByStart(start, shuffled, &storage);
  EXPECT_EQ(std::vector<uint32_t>(sorted.begin(), sorted.end()),
            (std::vector<uint32_t>{1, 3, 2, 0}));
  // A range in start order stays a range; one out of order is listed.
  const std::vector<int64_t> ascending{1, 2, 2, 7};
  EXPECT_TRUE(RowsByStart(ascending, model::RowSet::Range(1, 3), &storage).is_range());
  const model::RowSet listed = RowsByStart(start, model::RowSet::Range(0, 3), &storage);
  EXPECT_FALSE(listed.is_range());
  EXPECT_EQ(std::vector<uint32_t>(listed.begin(), listed.end()), (std::vector<uint32_t>{1, 2, 0}));
}

}  // namespace
}  // namespace trainscope::analysis
