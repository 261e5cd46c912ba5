#include "formats/trace/event_times.h"

#include <cmath>
#include <optional>

#include "core/numbers.h"

namespace trainscope::formats::trace {
namespace {

// A token that is a number ParseMicrosToNanos could not hold (it overflows
// int64 ns): out of range rather than bad text.
bool IsFiniteNumber(std::string_view raw) {
  std::optional<double> v = ParseDouble(raw);
  return v && std::isfinite(*v);
}

}  // namespace

RowIssue ReadEventTs(std::string_view raw, int64_t* ns) {
  if (raw.empty()) return RowIssue::kMissingTs;
  std::optional<int64_t> v = ParseMicrosToNanos(raw);
  if (!v) return IsFiniteNumber(raw) ? RowIssue::kTimestampOutOfRange : RowIssue::kBadTs;
  if (!InTimeRange(*v)) return RowIssue::kTimestampOutOfRange;
  *ns = *v;
  return RowIssue::kNone;
}

DurStatus ReadEventDur(std::string_view raw, int64_t* ns) {
  *ns = 0;
  if (raw.empty()) return DurStatus::kOk;
  std::optional<int64_t> v = ParseMicrosToNanos(raw);
  if (!v) return IsFiniteNumber(raw) ? DurStatus::kOutOfRange : DurStatus::kBad;
  if (!InTimeRange(*v)) return DurStatus::kOutOfRange;
  *ns = *v;
  return DurStatus::kOk;
}

}  // namespace trainscope::formats::trace
