#include "core/numbers.h"

#include <gtest/gtest.h>

namespace trainscope {
namespace {

TEST(NumbersTest, MicrosToNanosExactDecimals) {
  EXPECT_EQ(ParseMicrosToNanos("1736408883704643.212"), 1736408883704643212);
  EXPECT_EQ(ParseMicrosToNanos("1736408883704643.212\t"), 1736408883704643212);
  EXPECT_EQ(ParseMicrosToNanos("\"1736413971558972.912\t\""), 1736413971558972912);
  EXPECT_EQ(ParseMicrosToNanos(" 12.5 "), 12500);
}

TEST(NumbersTest, MicrosToNanosTrailingBlanksAndWhatMayNotFollowThem) {
  // The shape torch_npu writes (trailing TAB) on the fast path, rounded the
  // same as without it; a digit or a second number after the blank is no
  // number at all.
  EXPECT_EQ(ParseMicrosToNanos("1764246877000197.6405\t"), 1764246877000197641);
  EXPECT_EQ(ParseMicrosToNanos("47.2 \t "), 47200);
  EXPECT_EQ(ParseMicrosToNanos("168\t"), 168000);
  EXPECT_EQ(ParseMicrosToNanos("123\t4"), std::nullopt);
  EXPECT_EQ(ParseMicrosToNanos("1.5\t2.5"), std::nullopt);
  EXPECT_EQ(ParseMicrosToNanos("12.\t"), ParseMicrosToNanos("12."));
}

TEST(NumbersTest, MicrosToNanosFewerDecimals) {
  EXPECT_EQ(ParseMicrosToNanos("1695115378713661"), 1695115378713661000);
  EXPECT_EQ(ParseMicrosToNanos("1695115378715400.2"), 1695115378715400200);
  EXPECT_EQ(ParseMicrosToNanos("0"), 0);
  EXPECT_EQ(ParseMicrosToNanos("0.0"), 0);
  EXPECT_EQ(ParseMicrosToNanos(".5"), 500);
}

TEST(NumbersTest, MicrosToNanosRoundsExtraDecimals) {
  EXPECT_EQ(ParseMicrosToNanos("420174.2600000001"), 420174260);
  EXPECT_EQ(ParseMicrosToNanos("231290.09999999995"), 231290100);
  EXPECT_EQ(ParseMicrosToNanos("8873.756000000001"), 8873756);
  EXPECT_EQ(ParseMicrosToNanos("1.0004"), 1000);
  EXPECT_EQ(ParseMicrosToNanos("1.0005"), 1001);
  EXPECT_EQ(ParseMicrosToNanos("1881.080000"), 1881080);
}

TEST(NumbersTest, MicrosToNanosNegative) {
  EXPECT_EQ(ParseMicrosToNanos("-5.25"), -5250);
  EXPECT_EQ(ParseMicrosToNanos("-1.0005"), -1001);  // half away from zero
}

TEST(NumbersTest, MicrosToNanosRejectsNonNumbers) {
  EXPECT_EQ(ParseMicrosToNanos("N/A"), std::nullopt);
  EXPECT_EQ(ParseMicrosToNanos(""), std::nullopt);
  EXPECT_EQ(ParseMicrosToNanos("\t"), std::nullopt);
  EXPECT_EQ(ParseMicrosToNanos("-"), std::nullopt);
  EXPECT_EQ(ParseMicrosToNanos("12abc"), std::nullopt);
  EXPECT_EQ(ParseMicrosToNanos("1.2.3"), std::nullopt);
  EXPECT_EQ(ParseMicrosToNanos("99999999999999999999"), std::nullopt);  // overflow
}

TEST(NumbersTest, MicrosToNanosExponent) { EXPECT_EQ(ParseMicrosToNanos("1.5e3"), 1500000); }

TEST(NumbersTest, MissingValues) {
  EXPECT_TRUE(IsMissingValue(""));
  EXPECT_TRUE(IsMissingValue("N/A"));
  EXPECT_TRUE(IsMissingValue(" n/a\t"));
  EXPECT_TRUE(IsMissingValue("null"));
  EXPECT_TRUE(IsMissingValue("None"));
  EXPECT_FALSE(IsMissingValue("0"));
}

TEST(NumbersTest, TrimField) {
  EXPECT_EQ(TrimField(" \"1,2\"\t"), "1,2");
  EXPECT_EQ(TrimField("abc\t"), "abc");
  EXPECT_EQ(TrimField("\""), "\"");
}

TEST(NumbersTest, DoubleAndInt) {
  EXPECT_EQ(ParseInt64("4294967295"), 4294967295);
  EXPECT_EQ(ParseInt64("+7"), 7);
  EXPECT_EQ(ParseInt64("7.5"), std::nullopt);
  EXPECT_EQ(ParseInt64("N/A"), std::nullopt);
  EXPECT_DOUBLE_EQ(*ParseDouble("0.996"), 0.996);
  EXPECT_EQ(ParseDouble("N/A"), std::nullopt);
}

}  // namespace
}  // namespace trainscope
