// The marked walk of a '|'-separated line (formats/log/bar_fields.h) gives
// the fields the one-by-one walk gives, on random lines around every 32-
// and 64-byte boundary, and the long-line fallback is that walk.
#include "formats/log/bar_fields.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainscope::formats {
namespace {

using BarFieldList = std::vector<std::pair<std::string, std::string>>;

// Every field a walk reports, and where it stopped: a field whose key is
// "stop" ends the walk with an issue, as a parser's bad number does.
template <typename Walk>
std::pair<BarFieldList, RowIssue> BarFieldsOf(std::string_view line, Walk walk) {
  BarFieldList fields;
  const RowIssue issue = walk(line, [&](std::string_view key, std::string_view value) {
    fields.emplace_back(key, value);
    return key == "stop" ? RowIssue::kLogUnparsableNumber : RowIssue::kNone;
  });
  return {fields, issue};
}

const auto kMarkedWalk = [](std::string_view line, auto&& fn) {
  return bar_fields::ForEachMarked(line, fn);
};
const auto kOneByOneWalk = [](std::string_view line, auto&& fn) {
  return bar_fields::ForEachOneByOne(line, fn);
};
const auto kPublicWalk = [](std::string_view line, auto&& fn) { return ForEachBarField(line, fn); };

TEST(BarFields, AMegatronLineGivesItsKeysAndValues) {
  const std::string line =
      " consumed samples: 2560 | elapsed time per iteration (ms): 1000.5 | lm loss: 7.5E+00 |";
  const auto [fields, issue] = BarFieldsOf(line, kPublicWalk);
  EXPECT_EQ(issue, RowIssue::kNone);
  const BarFieldList expected = {{"consumed samples", " 2560 "},
                                 {"elapsed time per iteration (ms)", " 1000.5 "},
                                 {"lm loss", " 7.5E+00 "}};
  EXPECT_EQ(fields, expected);
}

TEST(BarFields, AFieldIsCutAtItsLastColonAndFieldsWithoutOneAreLeftOut) {
  const auto [fields, issue] = BarFieldsOf("a:b:c|no colon||\tkey :|:v|x", kPublicWalk);
  EXPECT_EQ(issue, RowIssue::kNone);
  const BarFieldList expected = {{"a:b", "c"}, {"key", ""}, {"", "v"}};
  EXPECT_EQ(fields, expected);
}

TEST(BarFields, TheFirstIssueEndsTheWalk) {
  const auto [fields, issue] = BarFieldsOf("a: 1 | stop: 2 | b: 3", kPublicWalk);
  EXPECT_EQ(issue, RowIssue::kLogUnparsableNumber);
  ASSERT_EQ(fields.size(), 2u);
  EXPECT_EQ(fields.back().first, "stop");
}

TEST(BarFields, MarkedAndOneByOneWalksAgreeOnRandomLines) {
  std::mt19937 rng(53);
  constexpr std::string_view kAlphabet = "||::  \tab1";
  std::uniform_int_distribution<size_t> pick(0, kAlphabet.size() - 1);
  std::uniform_int_distribution<size_t> length(0, bar_fields::kMarkedLineBytes);
  int lines_with_fields = 0;
  for (int n = 0; n < 20000; ++n) {
    // Every length up to 200 once, then random lengths up to the longest
    // marked line (the last words and the scalar tail).
    const size_t size = n <= 200 ? static_cast<size_t>(n) : length(rng);
    std::string line(size, ' ');
    for (char& c : line) c = kAlphabet[pick(rng)];
    if (n % 7 == 0 && size > 10) line.replace(size / 2, 6, "|stop:");
    const auto marked = BarFieldsOf(line, kMarkedWalk);
    ASSERT_EQ(marked, BarFieldsOf(line, kOneByOneWalk)) << "line: \"" << line << "\"";
    ASSERT_EQ(marked, BarFieldsOf(line, kPublicWalk));
    lines_with_fields += marked.first.empty() ? 0 : 1;
  }
  EXPECT_GT(lines_with_fields, 15000);
}

TEST(BarFields, ALineLongerThanTheMarksIsWalkedOneByOne) {
  std::string line;
  while (line.size() <= bar_fields::kMarkedLineBytes) line += "key: value |";
  line += "last:1";
  const auto [fields, issue] = BarFieldsOf(line, kPublicWalk);
  EXPECT_EQ(issue, RowIssue::kNone);
  EXPECT_EQ(fields, BarFieldsOf(line, kOneByOneWalk).first);
  EXPECT_EQ(fields.back(), (std::pair<std::string, std::string>{"last", "1"}));
}

}  // namespace
}  // namespace trainscope::formats
