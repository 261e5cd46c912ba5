// The exports' number and field formats: exact microseconds from int64 ns
// (no double), RFC 4180 CSV fields.
#include <gtest/gtest.h>

#include <string>

#include "export/csv_export.h"
#include "export/trace_export.h"

namespace trainscope::exports {
namespace {

std::string Micros(int64_t ns) {
  std::string out;
  AppendMicros(&out, ns);
  return out;
}

std::string Field(std::string_view text) {
  std::string out;
  AppendCsvField(&out, text);
  return out;
}

TEST(ExportFormat, MicrosAreTheNanosecondsWithThreeDecimals) {
  EXPECT_EQ(Micros(0), "0.000");
  EXPECT_EQ(Micros(7), "0.007");
  EXPECT_EQ(Micros(1'234'567), "1234.567");
  // 2^62 - 1 ns, the top of the accepted time range: a double would round it.
  EXPECT_EQ(Micros(4'611'686'018'427'387'903), "4611686018427387.903");
  EXPECT_EQ(Micros(1'764'246'877'106'656'260), "1764246877106656.260");
  EXPECT_EQ(Micros(-1'500), "-1.500");
  EXPECT_EQ(Micros(INT64_MIN), "-9223372036854775.808");
}

TEST(ExportFormat, CsvFieldsAreQuotedOnlyWhenTheyMustBe) {
  EXPECT_EQ(Field("MatMulV3"), "MatMulV3");
  EXPECT_EQ(Field(""), "");
  EXPECT_EQ(Field("a,b"), "\"a,b\"");
  EXPECT_EQ(Field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(Field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(Field("cr\r"), "\"cr\r\"");
  EXPECT_EQ(Field("µs ≤ 50"), "µs ≤ 50");
}

// OWASP's CSV-injection advice: a text cell a spreadsheet would run as a
// formula starts with a single quote; quoting rules still apply after it.
TEST(ExportFormat, CsvCellsThatLookLikeFormulasGetAQuoteInFront) {
  EXPECT_EQ(Field("=HYPERLINK(\"http://x\")"), "\"'=HYPERLINK(\"\"http://x\"\")\"");
  EXPECT_EQ(Field("+1"), "'+1");
  EXPECT_EQ(Field("-cmd"), "'-cmd");
  EXPECT_EQ(Field("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(Field("\tx"), "'\tx");
  EXPECT_EQ(Field("\rx"), "\"'\rx\"");
  EXPECT_EQ(Field("a=b"), "a=b");  // only the first character counts
  EXPECT_EQ(Field("'quoted"), "'quoted");
}

}  // namespace
}  // namespace trainscope::exports
