#include "core/numbers.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>

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

// The definition ParseMicrosToNanos meets on digits, one '.', digits and
// trailing blanks: the integer part at most 9223372036854775 µs (ns in
// int64), three decimals kept and the fourth rounding them, blanks around
// it dropped; anything else is no number.
std::optional<int64_t> MicrosToNanosByDefinition(const std::string& s) {
  size_t begin = 0;
  size_t end = s.size();
  while (end > 0 && (s[end - 1] == ' ' || s[end - 1] == '\t')) --end;
  while (begin < end && (s[begin] == ' ' || s[begin] == '\t')) ++begin;
  __extension__ __int128 micros = 0;
  int64_t frac = 0;
  int int_digits = 0, frac_digits = 0;
  bool dot = false, round_up = false;
  for (size_t i = begin; i < end; ++i) {
    const char c = s[i];
    if (c == '.' && !dot) {
      dot = true;
    } else if (c < '0' || c > '9') {
      return std::nullopt;
    } else if (!dot) {
      micros = micros * 10 + (c - '0');
      if (micros > 1'000'000'000'000'000'000) micros = 1'000'000'000'000'000'000;  // too big
      ++int_digits;
    } else {
      if (frac_digits < 3) frac = frac * 10 + (c - '0');
      if (frac_digits == 3) round_up = c >= '5';
      ++frac_digits;
    }
  }
  if (int_digits + frac_digits == 0 || micros > 9'223'372'036'854'775) return std::nullopt;
  for (int i = frac_digits; i < 3; ++i) frac *= 10;
  return static_cast<int64_t>(micros) * 1000 + frac + (round_up ? 1 : 0);
}

// Random integer parts of 0-20 digits (the epoch microsecond's 16 read
// eight at a time), decimals, trailing blanks, and a byte replaced by one
// next to the digits in ASCII or far from them, at every place.
TEST(NumbersTest, MicrosToNanosIsItsDefinitionOnRandomDigits) {
  std::mt19937 random(53);
  const std::string foreign =
      std::string("/:.a ") + static_cast<char>(0xFA) + static_cast<char>(0xFF);
  for (int trial = 0; trial < 20000; ++trial) {
    std::string s;
    const int int_digits = static_cast<int>(random() % 21);
    for (int i = 0; i < int_digits; ++i) s += static_cast<char>('0' + random() % 10);
    if (random() % 2 == 0) {
      s += '.';
      const int frac_digits = static_cast<int>(random() % 7);
      for (int i = 0; i < frac_digits; ++i) s += static_cast<char>('0' + random() % 10);
    }
    if (random() % 3 == 0) s += '\t';
    if (!s.empty() && random() % 3 == 0)
      s[random() % s.size()] = foreign[random() % foreign.size()];
    EXPECT_EQ(ParseMicrosToNanos(s), MicrosToNanosByDefinition(s)) << "'" << s << "'";
  }
}

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
