// Streaming line reader for training logs: a plain file is read with pread
// in 4 MiB pieces (not through its mapping: on this project's VMs the first
// touch of a mapped page costs more than copying it) and cut at '\n'; a .gz
// file (by its magic bytes, any name) is inflated in 1 MiB
// pieces, several gzip members in turn, with at most one partial line
// carried between pieces, so memory stays bounded by the piece and the
// longest line, never the log. A trailing '\r' is removed (CRLF logs); the
// last line may lack its '\n' (a log cut off mid-line). A line longer than
// kMaxLineBytes is handed over cut to that length with |too_long| set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "core/mapped_file.h"
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

// The same over a file already open; a line's text is valid during its call
// only (it lies in the reader's buffer). |piece_bytes|: the pread size
// (tests make it tiny, so that lines cross pieces).
inline constexpr size_t kLogReadPiece = size_t{4} << 20;
Result<int64_t> ForEachLogLineOf(const MappedFile& file,
                                 const std::function<void(const LogLine&)>& fn,
                                 size_t piece_bytes = kLogReadPiece);

// The same over bytes in memory (tests, fuzzing); |gzip| inflates them first.
Result<int64_t> ForEachLogLineIn(std::string_view bytes, bool gzip, const std::string& name,
                                 const std::function<void(const LogLine&)>& fn);

}  // namespace trainscope::formats
