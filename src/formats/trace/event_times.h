// Timestamps and durations of trace events, as int64 ns in the range every
// time must lie in ([0, 2^62), core/numbers.h): an event outside it is
// skipped with a reason, so no end = ts + dur overflows downstream.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/row_issues.h"

namespace trainscope::formats::trace {

// Reads the raw ts token into *ns; RowIssue::kNone when usable, else the
// ledger reason for skipping the event (kMissingTs, kBadTs,
// kTimestampOutOfRange for a number outside the range, 9.2e18 or -1 µs).
RowIssue ReadEventTs(std::string_view raw, int64_t* ns);

enum class DurStatus { kOk, kBad, kOutOfRange };
// Reads the raw dur token into *ns (0 when absent): kBad for text that is no
// number (the reader notes it and uses 0), kOutOfRange for a number outside
// the range (negative, or 2^62 ns and more: the event is skipped).
DurStatus ReadEventDur(std::string_view raw, int64_t* ns);

}  // namespace trainscope::formats::trace
