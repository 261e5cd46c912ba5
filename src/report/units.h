// Units at the report boundary. The analysis keeps every time in
// nanoseconds (int64 counts and sums, doubles for statistics); the reports
// print µs and ms under the names the JSON schema and the text have always
// used, converting here and nowhere earlier.
#pragma once

#include <cstdint>
#include <optional>

namespace trainscope::report {

inline double Us(int64_t ns) { return static_cast<double>(ns) / 1e3; }
inline double Us(double ns) { return ns / 1e3; }
// An unknown time stays unknown: JsonWriter::Field writes nullopt as null.
inline std::optional<double> UsOrNull(const std::optional<int64_t>& ns) {
  return ns ? std::optional<double>(Us(*ns)) : std::nullopt;
}
// Via microseconds, as the reports have always computed their ms (x_us /
// 1000): the same digits to the last one.
inline double Ms(int64_t ns) { return Us(ns) / 1e3; }
inline double Ms(double ns) { return Us(ns) / 1e3; }

// A mean is divided once, here, from its exact int64 sum: the analysis keeps
// totals and counts, not a mean rounded on the way.
inline double MeanUs(int64_t total_ns, int64_t count) {
  return count > 0 ? Us(total_ns) / static_cast<double>(count) : 0;
}

}  // namespace trainscope::report
