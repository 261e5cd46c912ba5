#include "core/rank_ranges.h"

#include <gtest/gtest.h>

#include <vector>

namespace trainscope {
namespace {

TEST(RankRanges, RunsOfThreeOrMoreBecomeRanges) {
  const std::vector<int32_t> ranks{7, 0, 1, 2, 3, 9, 10, 12, 13, 14, 3};
  EXPECT_EQ(CompactRankList(ranks), "0-3, 7, 9, 10, 12-14");
  EXPECT_EQ(CompactRankList(std::vector<int32_t>{}), "none");
  EXPECT_EQ(CompactRankList(std::vector<int64_t>{5}), "5");
}

TEST(RankRanges, LongListsAreCutWithTheirCount) {
  std::vector<int32_t> even;
  for (int32_t r = 0; r < 1024; r += 2) even.push_back(r);
  const std::string text = CompactRankList(even, 3);
  EXPECT_EQ(text, "0, 2, 4, ... (512 ranks in all)");
}

TEST(RankRanges, NearlyAllRanksAreSaidAsTheExceptions) {
  std::vector<int32_t> all;
  for (int32_t r = 0; r < 1024; ++r) all.push_back(r);
  EXPECT_EQ(CompactRankSet(all, 1024), "all 1,024 ranks");
  std::vector<int32_t> but_seven;
  for (int32_t r = 0; r < 1024; ++r) {
    if (r != 7) but_seven.push_back(r);
  }
  EXPECT_EQ(CompactRankSet(but_seven, 1024), "all 1,024 ranks but 7");
  // Few ranks: the list itself.
  EXPECT_EQ(CompactRankSet(std::vector<int32_t>{0, 1, 3}, 4), "0, 1, 3");
  // The same for 64-bit ranks (flight-recorder dumps, triage).
  std::vector<int64_t> wide(but_seven.begin(), but_seven.end());
  EXPECT_EQ(CompactRankSet(wide, 1024), "all 1,024 ranks but 7");
  EXPECT_EQ(CompactRankSet(std::vector<int64_t>{9, 14}, 16), "9, 14");
}

}  // namespace
}  // namespace trainscope
