// Streaming line reader for training logs: a plain file is memory-mapped and
// cut at '\n'; a .gz file (by its magic bytes, any name) is inflated in 1 MiB
// pieces, several gzip members in turn, with at most one partial line
// carried between pieces, so memory stays bounded by the piece and the
// longest line, never the log. A trailing '\r' is removed (CRLF logs); the
// last line may lack its '\n' (a log cut off mid-line). A line longer than
// kMaxLineBytes is handed over cut to that length with |too_long| set.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace trainscope::formats {

struct LogLine {
  std::string_view text;  // without '\n' and a trailing '\r'
  int64_t offset = 0;     // byte offset of the line (in the inflated text for .gz)
  int64_t number = 0;     // 1-based
  bool too_long = false;
};

inline constexpr size_t kMaxLineBytes = 1 << 20;

// Calls |fn| for every line of |path|. Returns the bytes read (inflated), or
// an error naming the file (unreadable, a corrupt gzip stream: the lines
// before the damage were handed over).
Result<int64_t> ForEachLogLine(const std::string& path,
                               const std::function<void(const LogLine&)>& fn);

// The same over bytes in memory (tests, fuzzing); |gzip| inflates them first.
// |mapped|: |bytes| is a read-only file mapping the caller does not read
// again: its pages are released behind the cursor (madvise DONTNEED, in
// 64 MiB slices), so a 1 GB plain log does not hold 1 GB resident.
Result<int64_t> ForEachLogLineIn(std::string_view bytes, bool gzip, const std::string& name,
                                 const std::function<void(const LogLine&)>& fn,
                                 bool mapped = false);

}  // namespace trainscope::formats
