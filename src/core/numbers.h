// Number parsing for profile fields.
//
// Profile timestamps are decimal microseconds since the epoch with up to
// three (sometimes more) decimals, e.g. "1736408883704643.212\t". A double
// has a ULP of ~0.25 us at 1.7e15 us, so timestamps are parsed digit by digit
// into int64 nanoseconds and never pass through floating point.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace trainscope {

// Strips spaces, tabs, CR/LF and one pair of surrounding double quotes
// (profilers write literal quotes inside quoted fields, e.g. "\"1,2\"").
std::string_view TrimField(std::string_view field);

// True for fields that mean "no value": empty, N/A, NA, null, None (after trim).
bool IsMissingValue(std::string_view field);

// "1736408883704643.212" (us) -> 1736408883704643212 (ns). Extra decimals are
// rounded half away from zero; exponents ("1.5e3") are accepted through a
// slower path. Returns nullopt for anything that is not a number or overflows.
// The same as a flag, the value into |ns| (left alone when false). The
// parsers' out-of-line functions return a flag, never an optional<int64_t>:
// GCC builds that in memory with a byte store for the flag, which the
// caller's 8-byte load of it waits for (a third of each number's parse).
bool ParseMicrosToNanos(std::string_view field, int64_t* ns);
inline std::optional<int64_t> ParseMicrosToNanos(std::string_view field) {
  int64_t ns = 0;
  if (!ParseMicrosToNanos(field, &ns)) return std::nullopt;
  return ns;
}

bool ParseDouble(std::string_view field, double* value);
inline std::optional<double> ParseDouble(std::string_view field) {
  double value = 0;
  if (!ParseDouble(field, &value)) return std::nullopt;
  return value;
}

// A decimal size in units of 2^shift bytes -> int64 bytes, never through a
// double: "954.3701171875" MB (shift 20) -> 1000729600, "18816.5" KB (shift
// 10) -> 19268096. Sizes the profilers print are k / 2^shift and so exact
// decimals of at most |shift| places: those convert exactly. Other decimals
// ("0.1" MB) are rounded half away from zero to the byte; digits past the
// 24th decimal are ignored. Negative values are kept (operator_memory.csv
// writes a negative Size(KB) for a release seen without its allocation).
// Exponents take a double path rounded to the byte. nullopt for anything
// that is not a number or does not fit int64 bytes.
std::optional<int64_t> ParseBinaryScaledBytes(std::string_view field, int shift);

// The range every timestamp and duration must lie in, in nanoseconds:
// [0, 2^62). 2^62 ns is 146 years after the epoch, far past any real
// profile, and two such values still add up without int64 overflow, so
// end = start + duration and end - start are always defined. Readers skip a
// row outside it with a reason (a negative start would otherwise give a
// 110-year span, a huge one an overflowed, negative end).
inline constexpr int64_t kMaxTimeNs = int64_t{1} << 62;
inline constexpr bool InTimeRange(int64_t ns) { return ns >= 0 && ns < kMaxTimeNs; }
// A start and a duration both in range (so start + duration cannot overflow).
inline constexpr bool ValidSpanNs(int64_t start_ns, int64_t duration_ns) {
  return InTimeRange(start_ns) && InTimeRange(duration_ns);
}
bool ParseInt64(std::string_view field, int64_t* value);
inline std::optional<int64_t> ParseInt64(std::string_view field) {
  int64_t value = 0;
  if (!ParseInt64(field, &value)) return std::nullopt;
  return value;
}

// acc + value, clamped to INT64_MAX/INT64_MIN instead of overflowing. Sums
// of many in-range durations (kernel time per family, per op type) can
// pass 2^63 on hostile input: the total is then "huge", not negative and
// not undefined behaviour.
inline void AddSaturating(int64_t& acc, int64_t value) {
  if (__builtin_add_overflow(acc, value, &acc)) {
    acc = value > 0 ? INT64_MAX : INT64_MIN;
  }
}

}  // namespace trainscope
