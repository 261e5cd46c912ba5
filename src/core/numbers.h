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
std::optional<int64_t> ParseMicrosToNanos(std::string_view field);

std::optional<double> ParseDouble(std::string_view field);
std::optional<int64_t> ParseInt64(std::string_view field);

}  // namespace trainscope
