#include "formats/log/line_reader.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/mapped_file.h"
#include "formats/gzip_magic.h"

namespace trainscope::formats {
namespace {

constexpr size_t kInflatePiece = 1 << 20;
constexpr size_t kMappedSlice = size_t{64} << 20;

class LineCutter {
 public:
  explicit LineCutter(const std::function<void(const LogLine&)>& fn) : fn_(fn) {}

  // Complete lines of |text| (which continues the carry) go out; the rest is
  // carried, up to kMaxLineBytes.
  void Feed(std::string_view text) {
    while (!text.empty()) {
      const void* nl = std::memchr(text.data(), '\n', text.size());
      if (nl == nullptr) {
        Carry(text);
        base_ += static_cast<int64_t>(text.size());
        return;
      }
      const size_t len = static_cast<const char*>(nl) - text.data();
      if (carry_.empty() && !dropping_) {
        Emit(text.substr(0, len), false);
      } else {
        Carry(text.substr(0, len));
        Emit(carry_, dropping_);
      }
      base_ += static_cast<int64_t>(len) + 1;
      line_start_ = base_;
      carry_.clear();
      dropping_ = false;
      text.remove_prefix(len + 1);
    }
  }

  void Finish() {
    if (!carry_.empty() || dropping_) Emit(carry_, dropping_);
    carry_.clear();
    dropping_ = false;
  }

 private:
  void Carry(std::string_view part) {
    if (dropping_) return;
    const size_t room = kMaxLineBytes - carry_.size();
    if (part.size() > room) {
      carry_.append(part.substr(0, room));
      dropping_ = true;
      return;
    }
    carry_.append(part);
  }

  void Emit(std::string_view line, bool too_long) {
    LogLine out;
    out.text = line;
    if (out.text.size() > kMaxLineBytes) {
      out.text = out.text.substr(0, kMaxLineBytes);
      too_long = true;
    }
    if (!out.text.empty() && out.text.back() == '\r') out.text.remove_suffix(1);
    out.offset = line_start_;
    out.number = ++number_;
    out.too_long = too_long;
    fn_(out);
  }

  const std::function<void(const LogLine&)>& fn_;
  std::string carry_;
  bool dropping_ = false;
  int64_t base_ = 0;        // offset of the next byte fed
  int64_t line_start_ = 0;  // offset of the current line
  int64_t number_ = 0;
};

Result<int64_t> Inflate(std::string_view gz, const std::string& name, LineCutter* cutter) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 32) != Z_OK) return InternalError("zlib inflateInit2 failed");
  std::vector<char> out(kInflatePiece);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  // zlib counts in uInt; the mapped file can be larger, so feed in slices.
  size_t left = gz.size();
  int64_t total = 0;
  Status status = Status::Ok();
  while (true) {
    if (z.avail_in == 0 && left > 0) {
      const size_t take = std::min<size_t>(left, 1u << 30);
      z.avail_in = static_cast<uInt>(take);
      left -= take;
    }
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = inflate(&z, Z_NO_FLUSH);
    const size_t produced = out.size() - z.avail_out;
    total += static_cast<int64_t>(produced);
    cutter->Feed(std::string_view(out.data(), produced));
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0 && left == 0) break;
      inflateReset(&z);  // the next gzip member (cat a.gz b.gz, pigz)
      continue;
    }
    if (rc == Z_BUF_ERROR && z.avail_in == 0 && left == 0) {
      status =
          InvalidInput(fmt::format("{}: gzip stream ends early after {} inflated bytes\nhint: the "
                                   "file was cut off; the lines "
                                   "before the cut were read",
                                   name, total));
      break;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      status = InvalidInput(fmt::format(
          "{}: corrupt gzip stream after {} inflated bytes ({})\nhint: check the file with gzip -t",
          name, total, z.msg != nullptr ? z.msg : "zlib error"));
      break;
    }
  }
  inflateEnd(&z);
  cutter->Finish();
  if (!status.ok()) return status;
  return total;
}

}  // namespace

Result<int64_t> ForEachLogLineIn(std::string_view bytes, bool gzip, const std::string& name,
                                 const std::function<void(const LogLine&)>& fn, bool mapped) {
  LineCutter cutter(fn);
  if (gzip) return Inflate(bytes, name, &cutter);
  if (!mapped) {
    cutter.Feed(bytes);
  } else {
    // A line crossing a slice is carried (copied) by the cutter, so a slice
    // is not referenced once fed: its whole pages go back to the page cache.
    const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    char* const base = const_cast<char*>(bytes.data());
    const size_t misalign = reinterpret_cast<uintptr_t>(base) % page;
    // Offsets from |base| of the page boundaries: released up to |released|.
    size_t released = misalign == 0 ? 0 : page - misalign;
    for (size_t at = 0; at < bytes.size(); at += kMappedSlice) {
      const size_t n = std::min(kMappedSlice, bytes.size() - at);
      cutter.Feed(bytes.substr(at, n));
      const size_t end = at + n;
      const size_t done = end - (end + misalign) % page;
      if (done > released) {
        madvise(base + released, done - released, MADV_DONTNEED);
        released = done;
      }
    }
  }
  cutter.Finish();
  return static_cast<int64_t>(bytes.size());
}

Result<int64_t> ForEachLogLine(const std::string& path,
                               const std::function<void(const LogLine&)>& fn) {
  TS_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  return ForEachLogLineIn(file.data(), IsGzip(file.data()), path, fn, /*mapped=*/true);
}

}  // namespace trainscope::formats
