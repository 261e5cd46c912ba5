#include "report/text_table.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "report/text_report.h"

namespace trainscope::report {
namespace {

std::vector<std::string> TableLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

const std::vector<TextColumn> kOpColumns = {
    {.header = "operator", .left = true, .elastic = true, .min_width = 12},
    {.header = "family", .left = true, .drop_order = 2},
    {.header = "count", .drop_order = 3},
    {.header = "total"},
    {.header = "mean", .drop_order = 1}};

const std::vector<std::vector<std::string>> kOpRows = {
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x128x64_warpgroupsize1x1x1_kernel",
     "matmul/attention", "1,204", "812.4 ms", "674.8 µs"},
    {"sm90_xmma_gemm_bf16f32_bf16f32_f32_nt_n_tilesize128x128x64_warpgroupsize1x1x1_kernel",
     "matmul/attention", "96", "40.1 ms", "417.7 µs"}};

TEST(TextTableTest, AWideTerminalShowsEveryColumnAndWholeNames) {
  TextTableOptions options;
  options.width = 200;
  const std::vector<std::string> lines = TableLines(RenderTextTable(kOpColumns, kOpRows, options));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_NE(lines[0].find("mean"), std::string::npos);
  EXPECT_NE(lines[1].find(kOpRows[0][0]), std::string::npos);
  EXPECT_NE(lines[1].find("674.8 µs"), std::string::npos);
}

TEST(TextTableTest, ANarrowTerminalDropsColumnsThenShortensNames) {
  for (const int width : {80, 60, 40}) {
    TextTableOptions options;
    options.width = width;
    const std::vector<std::string> lines =
        TableLines(RenderTextTable(kOpColumns, kOpRows, options));
    ASSERT_EQ(lines.size(), 3u);
    for (const std::string& line : lines) {
      EXPECT_LE(VisibleColumns(line), static_cast<size_t>(width)) << line;
      EXPECT_EQ(line.back() == ' ', false) << line;
    }
    // The totals are never dropped and never split from their unit.
    EXPECT_NE(lines[1].find("812.4 ms"), std::string::npos) << lines[1];
    EXPECT_NE(lines[1], lines[2]);
  }
  // At 60 columns the names shorten and every column stays; at 40 the mean
  // goes first, then the family.
  TextTableOptions options;
  options.width = 60;
  const std::string sixty = RenderTextTable(kOpColumns, kOpRows, options);
  EXPECT_NE(sixty.find("mean"), std::string::npos);
  options.width = 40;
  const std::string forty = RenderTextTable(kOpColumns, kOpRows, options);
  EXPECT_EQ(forty.find("mean"), std::string::npos) << forty;
  EXPECT_EQ(forty.find("family"), std::string::npos) << forty;
  EXPECT_NE(forty.find("count"), std::string::npos) << forty;
}

TEST(TextTableTest, APipeKeepsEveryColumnAndCapsNames) {
  TextTableOptions options;
  options.pipe_name_columns = 30;
  const std::vector<std::string> lines = TableLines(RenderTextTable(kOpColumns, kOpRows, options));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_NE(lines[0].find("mean"), std::string::npos);
  // The name column is 30 wide: "family" starts after it.
  EXPECT_EQ(lines[0].substr(2 + 30 + 1, 6), "family") << lines[0];
  const std::string row_start = CutToColumns(lines[1], 2 + 30 + 1);
  EXPECT_EQ(lines[1].substr(row_start.size(), 6), "matmul") << lines[1];
}

}  // namespace
}  // namespace trainscope::report
