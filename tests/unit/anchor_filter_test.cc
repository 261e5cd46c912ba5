// AnchorFilter (core/anchor_filter.h) never says "none" of a line that holds
// an anchor, wherever in the line and however the line is built, and says it
// of lines that hold none of the anchors' first four bytes.
#include "core/anchor_filter.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace trainscope {
namespace {

const std::vector<std::string_view> kAnchors = {
    "[rank", "[PG ", " died from signal", "NCCL WARN", "(SIGKILL)", "oom-kill", "Total run time"};

AnchorFilter Filter() {
  return AnchorFilter({"[rank", "[PG ", " died from signal", "NCCL WARN", "(SIGKILL)", "oom-kill",
                       "Total run time"});
}

bool HoldsAny(std::string_view line) {
  for (std::string_view a : kAnchors) {
    if (line.find(a) != std::string_view::npos) return true;
  }
  return false;
}

TEST(AnchorFilter, EveryLineHoldingAnAnchorPasses) {
  const AnchorFilter filter = Filter();
  std::mt19937 rng(7);
  const std::string alphabet = "abc [PGrank]NCLWS(IK)-o ";
  int holding = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string line;
    const size_t before = rng() % 40;
    for (size_t i = 0; i < before; ++i) line += alphabet[rng() % alphabet.size()];
    if (round % 2 == 0) line += kAnchors[rng() % kAnchors.size()];
    const size_t after = rng() % 40;
    for (size_t i = 0; i < after; ++i) line += alphabet[rng() % alphabet.size()];
    if (HoldsAny(line)) {
      ++holding;
      EXPECT_TRUE(filter.MayHold(line)) << line;
    }
  }
  EXPECT_GE(holding, 10000);
  EXPECT_TRUE(filter.MayHold("[PG "));  // the anchor alone, at the line's end
  EXPECT_TRUE(filter.MayHold("x(SIGKILL)"));
}

TEST(AnchorFilter, LinesWithoutTheAnchorsStartsAreRejected) {
  const AnchorFilter filter = Filter();
  EXPECT_FALSE(filter.MayHold(""));
  EXPECT_FALSE(filter.MayHold("[PG"));  // shorter than any anchor
  EXPECT_FALSE(filter.MayHold(
      " iteration      100/    1000 | consumed samples:        12800 | elapsed time per iteration "
      "(ms): 1234.5 | learning rate: 3.000E-04 | lm loss: 2.345678E+00 | grad norm: 1.234 |"));
  // The first four bytes of an anchor pass even when the rest differs: the
  // line is then searched as before.
  EXPECT_TRUE(filter.MayHold("[PG 3 says"));
  EXPECT_TRUE(filter.MayHold("NCCL WAIT"));
}

TEST(AnchorFilter, AShortAnchorPassesEveryLine) {
  const AnchorFilter filter({"[rank", "ab"});
  EXPECT_TRUE(filter.MayHold("xyz"));
  EXPECT_TRUE(filter.MayHold(""));
}

}  // namespace
}  // namespace trainscope
