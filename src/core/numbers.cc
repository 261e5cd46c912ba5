#include "core/numbers.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace trainscope {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view StripSpaces(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

}  // namespace

std::string_view TrimField(std::string_view field) {
  field = StripSpaces(field);
  if (field.size() >= 2 && field.front() == '"' && field.back() == '"') {
    field = StripSpaces(field.substr(1, field.size() - 2));
  }
  return field;
}

bool IsMissingValue(std::string_view field) {
  field = TrimField(field);
  return field.empty() || EqualsIgnoreCase(field, "N/A") || EqualsIgnoreCase(field, "NA") ||
         EqualsIgnoreCase(field, "null") || EqualsIgnoreCase(field, "None");
}

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Eight ASCII digits at |p| (the first the most significant) as their
// value, or false when a byte is not a digit; the digit test and the
// multiply-shift reduction of fast_float (parse_eight_digits_unrolled).
// An epoch microsecond has 16 digits: two of these instead of a chain of
// sixteen dependent multiply-adds.
bool EightDigits(const char* p, uint64_t* value) {
  if constexpr (std::endian::native != std::endian::little) {
    return false;
  } else {
    uint64_t v = 0;
    std::memcpy(&v, p, sizeof(v));
    constexpr uint64_t kHigh = 0xF0F0F0F0F0F0F0F0;
    if (((v & kHigh) | (((v + 0x0606060606060606) & kHigh) >> 4)) != 0x3333333333333333) {
      return false;
    }
    v -= 0x3030303030303030;
    v = (v * 10) + (v >> 8);  // pairs of digits
    constexpr uint64_t kPairs = 0x000000FF000000FF;
    *value =
        (((v & kPairs) * 0x000F424000000064) + (((v >> 16) & kPairs) * 0x0000271000000001)) >> 32;
    return true;
  }
}

// The common shapes, "1669783687464181" and "1736408883704643.212" (epoch
// µs has 16 digits), maybe followed by TABs or spaces, with at most 16 integer digits (no overflow
// in the loop; one range check after it): no trimming, no per-digit checks. Anything else returns
// false and takes the general path.
bool ParsePlainMicrosToNanos(std::string_view s, int64_t* ns) {
  const char* p = s.data();
  const char* const end = p + s.size();
  const char* const int_end = p + std::min<size_t>(s.size(), 16);
  int64_t micros = 0;
  const char* q = p;
  for (uint64_t eight = 0; q + 8 <= int_end && EightDigits(q, &eight); q += 8) {
    micros = micros * 100'000'000 + static_cast<int64_t>(eight);
  }
  while (q < int_end && IsDigit(*q)) micros = micros * 10 + (*q++ - '0');
  if (q == p || (q < end && IsDigit(*q))) return false;
  // micros * 1000 + 999 must fit in int64.
  if (micros > (std::numeric_limits<int64_t>::max() - 999) / 1000) return false;
  int64_t frac_ns = 0;
  if (q < end && *q == '.') {
    ++q;
    const char* frac_begin = q;
    int digits = 0;
    bool round_up = false;
    for (; q < end && IsDigit(*q); ++q, ++digits) {
      if (digits < 3)
        frac_ns = frac_ns * 10 + (*q - '0');
      else if (digits == 3)
        round_up = *q >= '5';
    }
    if (q == frac_begin) return false;
    for (int i = digits; i < 3; ++i) frac_ns *= 10;
    if (round_up) ++frac_ns;
  }
  // torch_npu writes the start time with a trailing TAB ("...000.000\t",
  // docs: ascend-formats.md); TrimField would strip it on the general path.
  while (q < end && (*q == '\t' || *q == ' ')) ++q;
  if (q != end) return false;
  *ns = micros * 1000 + frac_ns;
  return true;
}

}  // namespace

bool ParseMicrosToNanos(std::string_view field, int64_t* out) {
  if (ParsePlainMicrosToNanos(field, out)) return true;
  std::string_view s = TrimField(field);
  if (s.empty()) return false;
  bool negative = false;
  size_t pos = 0;
  if (s[0] == '-' || s[0] == '+') {
    negative = s[0] == '-';
    pos = 1;
  }
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t micros = 0;
  size_t int_digits = 0;
  while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
    int digit = s[pos] - '0';
    if (micros > (kMax / 1000 - digit) / 10) return false;  // would overflow as ns
    micros = micros * 10 + digit;
    ++pos;
    ++int_digits;
  }
  int64_t frac_ns = 0;
  size_t frac_digits = 0;
  bool round_up = false;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (frac_digits < 3) {
        frac_ns = frac_ns * 10 + (s[pos] - '0');
      } else if (frac_digits == 3) {
        round_up = s[pos] >= '5';
      }
      ++frac_digits;
      ++pos;
    }
  }
  if (int_digits == 0 && frac_digits == 0) return false;
  if (pos != s.size()) {
    if (s[pos] == 'e' || s[pos] == 'E') {
      auto as_double = ParseDouble(s);
      if (!as_double || !std::isfinite(*as_double) || std::fabs(*as_double) > 9.2e15) {
        return false;
      }
      *out = static_cast<int64_t>(std::llround(*as_double * 1000.0));
      return true;
    }
    return false;
  }
  for (size_t i = frac_digits; i < 3; ++i) frac_ns *= 10;
  const int64_t ns = micros * 1000 + frac_ns + (round_up ? 1 : 0);
  *out = negative ? -ns : ns;
  return true;
}

bool ParseDouble(std::string_view field, double* out) {
  std::string_view s = TrimField(field);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  double value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size()) return false;
  *out = value;
  return true;
}

// 128 bits hold 10^24 << 40 (the largest scaled fraction) and 2^63 << 40.
__extension__ using Int128 = __int128;

std::optional<int64_t> ParseBinaryScaledBytes(std::string_view field, int shift) {
  if (shift < 0 || shift > 40) return std::nullopt;
  std::string_view s = TrimField(field);
  bool negative = false;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  constexpr int kMaxFracDigits = 24;
  Int128 whole = 0;
  Int128 frac = 0;
  Int128 frac_scale = 1;
  size_t pos = 0;
  size_t int_digits = 0;
  size_t frac_digits = 0;
  constexpr Int128 kLimit = static_cast<Int128>(std::numeric_limits<int64_t>::max());
  for (; pos < s.size() && IsDigit(s[pos]); ++pos, ++int_digits) {
    whole = whole * 10 + (s[pos] - '0');
    if (whole > kLimit) return std::nullopt;
  }
  if (pos < s.size() && s[pos] == '.') {
    for (++pos; pos < s.size() && IsDigit(s[pos]); ++pos, ++frac_digits) {
      if (frac_digits < kMaxFracDigits) {
        frac = frac * 10 + (s[pos] - '0');
        frac_scale *= 10;
      }
    }
  }
  if (int_digits == 0 && frac_digits == 0) return std::nullopt;
  if (pos != s.size()) {
    if (s[pos] != 'e' && s[pos] != 'E') return std::nullopt;
    std::optional<double> as_double = ParseDouble(field);
    if (!as_double || !std::isfinite(*as_double)) return std::nullopt;
    const double bytes = std::ldexp(*as_double, shift);
    if (std::fabs(bytes) >= 9.2e18) return std::nullopt;
    return static_cast<int64_t>(std::llround(bytes));
  }
  // frac / frac_scale * 2^shift, rounded half away from zero (the sign is
  // applied after, so the rounding is symmetric).
  const Int128 scaled = frac << shift;
  Int128 frac_bytes = scaled / frac_scale;
  if ((scaled % frac_scale) * 2 >= frac_scale) ++frac_bytes;
  const Int128 bytes = (whole << shift) + frac_bytes;
  if (bytes > kLimit) return std::nullopt;
  return negative ? -static_cast<int64_t>(bytes) : static_cast<int64_t>(bytes);
}

bool ParseInt64(std::string_view field, int64_t* out) {
  std::string_view s = TrimField(field);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size()) return false;
  *out = value;
  return true;
}

}  // namespace trainscope
