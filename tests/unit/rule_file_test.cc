#include "core/rule_file.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace trainscope {
namespace {

struct Line {
  size_t number;
  std::vector<std::string> columns;
};

std::vector<Line> Read(std::string_view text, RuleColumns columns) {
  std::vector<Line> lines;
  Status status = ForEachRuleLine(
      text,
      [&](size_t number, std::string_view, const std::vector<std::string_view>& cols) {
        lines.push_back({number, std::vector<std::string>(cols.begin(), cols.end())});
        return Status::Ok();
      },
      columns);
  EXPECT_TRUE(status.ok());
  return lines;
}

TEST(RuleFile, AlignedColumnsSplitOnTabsAndSpaceRuns) {
  const auto lines =
      Read("# comment\n\nmatmul   MatMul V2\tx\r\n  # indented comment\n", RuleColumns::kAligned);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].number, 3u);
  EXPECT_EQ(lines[0].columns, (std::vector<std::string>{"matmul", "MatMul V2", "x"}));
}

TEST(RuleFile, TabColumnsKeepEmptyColumnsAndDoubleSpaces) {
  const auto lines = Read("fingerprint\tid\t\ta  b \t last\n", RuleColumns::kTabs);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].columns, (std::vector<std::string>{"fingerprint", "id", "", "a  b", "last"}));
}

TEST(RuleFile, StopsAtTheFirstErrorWithItsLine) {
  size_t calls = 0;
  Status status = ForEachRuleLine("a\nb\nc\n", [&](size_t number, std::string_view, const auto&) {
    ++calls;
    return number == 2 ? InvalidInput("line 2") : Status::Ok();
  });
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.message(), "line 2");
  EXPECT_EQ(calls, 2u);
}

TEST(RuleFile, SplitOnKeepsEmptyPieces) {
  EXPECT_EQ(SplitOn("a||b|", '|'), (std::vector<std::string_view>{"a", "", "b", ""}));
  EXPECT_EQ(SplitOn("", '|'), (std::vector<std::string_view>{""}));
}

}  // namespace
}  // namespace trainscope
