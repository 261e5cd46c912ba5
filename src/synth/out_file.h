// A write-only file fed from a fmt::memory_buffer in large chunks.
//
// Rows are formatted into the buffer and handed to the OS a MiB at a
// time: one fwrite per chunk keeps a 1 GB kernel_details.csv I/O-bound.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "core/status.h"

namespace trainscope::synth {

class OutFile {
 public:
  OutFile() = default;
  OutFile(const OutFile&) = delete;
  OutFile& operator=(const OutFile&) = delete;
  ~OutFile();

  Status Open(const std::string& path);
  fmt::memory_buffer& buffer() { return buffer_; }
  // Writes the buffer out once it holds at least a chunk.
  Status MaybeFlush() { return buffer_.size() >= kChunk ? Flush() : Status::Ok(); }
  Status Flush();
  Status Close();
  uint64_t bytes_written() const { return bytes_written_; }

 private:
  static constexpr size_t kChunk = 1 << 20;  // one buffer per rank is open at once
  std::FILE* file_ = nullptr;
  std::string path_;
  fmt::memory_buffer buffer_;
  uint64_t bytes_written_ = 0;
};

// Writes |text| to |path| in one go.
Status WriteWholeFile(const std::string& path, std::string_view text);

// Appends |value| / 10^decimals in fixed notation, e.g. (1234567, 3) -> 1234.567.
void AppendFixed(fmt::memory_buffer& buf, int64_t value, int decimals);
// Appends nanoseconds as microseconds with |decimals| (0..3) decimals, rounded half up.
void AppendUs(fmt::memory_buffer& buf, int64_t ns, int decimals);
inline void AppendInt(fmt::memory_buffer& buf, int64_t value) {
  fmt::format_int text(value);
  buf.append(text.data(), text.data() + text.size());
}
inline void AppendStr(fmt::memory_buffer& buf, std::string_view text) {
  buf.append(text.data(), text.data() + text.size());
}

}  // namespace trainscope::synth
