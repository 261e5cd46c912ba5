#include "formats/log/line_reader.h"

#include <fmt/format.h>
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
                                 const std::function<void(const LogLine&)>& fn) {
  LineCutter cutter(fn);
  if (gzip) return Inflate(bytes, name, &cutter);
  cutter.Feed(bytes);
  cutter.Finish();
  return static_cast<int64_t>(bytes.size());
}

Result<int64_t> ForEachLogLineOf(const MappedFile& file,
                                 const std::function<void(const LogLine&)>& fn,
                                 size_t piece_bytes) {
  LineCutter cutter(fn);
  // The compressed bytes are read once, front to back, a tenth of the text.
  if (IsGzip(file.data())) return Inflate(file.data(), file.path(), &cutter);
  // A line crossing two pieces is carried (copied) by the cutter, so one
  // buffer serves every piece and the mapping is never read.
  std::vector<char> piece(std::clamp<size_t>(file.size(), 1, std::max<size_t>(piece_bytes, 1)));
  for (size_t at = 0; at < file.size(); at += piece.size()) {
    const size_t n = std::min(piece.size(), file.size() - at);
    if (!file.ReadAt(at, n, piece.data())) {
      cutter.Finish();
      return IoError(
          fmt::format("{}: cannot read {} bytes at offset {} (the file shrank, or a "
                      "read error)\nhint: the lines before that offset were read",
                      file.path(), n, at));
    }
    cutter.Feed(std::string_view(piece.data(), n));
  }
  cutter.Finish();
  return static_cast<int64_t>(file.size());
}

Result<int64_t> ForEachLogLine(const std::string& path,
                               const std::function<void(const LogLine&)>& fn) {
  TS_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  Result<int64_t> bytes = ForEachLogLineOf(file, fn);
  TS_RETURN_IF_ERROR(file.CheckIntact());
  return bytes;
}

}  // namespace trainscope::formats
