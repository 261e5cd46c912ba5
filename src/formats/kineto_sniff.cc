#include "formats/kineto_sniff.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/mapped_file.h"
#include "formats/gzip_magic.h"

namespace trainscope::formats {
namespace {

constexpr std::string_view kTraceKeys[] = {"traceEvents", "schemaVersion"};
// JSON Array Format: the key every trace event has (the Trace Event Format
// requires "ph" in each event).
constexpr std::string_view kEventKeys[] = {"ph"};
// Keys longer than this are not ours: stop copying them.
constexpr size_t kMaxKeyLength = 32;
// Before the walk, a file was a trace when its first 256 KiB mention the key
// anywhere. Kept as the fallback where the walk cannot decide (a damaged
// head that is not an object, brackets that never close), so nothing read
// before is dropped; never when the walk saw a whole object without the key.
constexpr size_t kLegacyWindow = size_t{256} * 1024;

bool LegacyMatch(TopLevelKeyScanner::State state, std::string_view head) {
  if (state == TopLevelKeyScanner::State::kEnded) return false;
  return head.find("\"traceEvents\"") != std::string_view::npos ||
         head.find("\"schemaVersion\"") != std::string_view::npos;
}

std::string NotTraceReason(const TopLevelKeyScanner& scanner, size_t bytes_seen, bool at_limit) {
  if (bytes_seen == 0) return "not a trace: empty";
  const TopLevelKeyScanner::State state = scanner.state();
  if (scanner.array() && state != TopLevelKeyScanner::State::kMore) {
    return "not a trace: a JSON array whose first element is not a trace event (an object with "
           "a \"ph\" key)";
  }
  if (scanner.array()) {
    return fmt::format("not a trace: a JSON array whose first element does not end within {} bytes",
                       bytes_seen);
  }
  switch (state) {
    case TopLevelKeyScanner::State::kNotObject:
      return "not a trace: not a JSON object or array";
    case TopLevelKeyScanner::State::kEnded:
      return "not a trace: no top-level \"traceEvents\" key";
    default:
      break;
  }
  if (at_limit) {
    return fmt::format("not a trace: no top-level \"traceEvents\" key in the first {} MiB",
                       kSniffLimitBytes >> 20);
  }
  return fmt::format("not a trace: no top-level \"traceEvents\" key before the end at byte {}",
                     bytes_seen);
}

// trainscope's annotated trace (analyze --perfetto, schema
// trainscope.trace/N): a Chrome trace its reader takes back when the user
// names it, but one of trainscope's own files in a directory walk.
bool IsOwnTrace(std::string_view data) {
  return data.substr(0, 512).find("\"schema\":\"trainscope.trace/") != std::string_view::npos;
}

// trainscope's reports and synth's ground truth are not profiles.
bool IsOwnOutput(std::string_view data) {
  const std::string_view head = data.substr(0, 512);
  return head.find("\"generator\": \"trainscope synth\"") != std::string_view::npos ||
         head.find("\"schema\":\"trainscope.") != std::string_view::npos ||
         head.find("\"schema\": \"trainscope.") != std::string_view::npos;
}

SniffResult SniffPlain(std::string_view data) {
  const bool own_trace = IsOwnTrace(data);
  if (!own_trace && IsOwnOutput(data)) return {false, "a trainscope output, not a profile", true};
  const std::string_view window = data.substr(0, std::min(data.size(), kSniffLimitBytes));
  TopLevelKeyScanner scanner;
  if (scanner.Feed(window) == TopLevelKeyScanner::State::kFound) return {true, "", own_trace};
  if (LegacyMatch(scanner.state(), window.substr(0, kLegacyWindow))) return {true, "", own_trace};
  return {false, NotTraceReason(scanner, window.size(), window.size() < data.size()), own_trace};
}

// Inflates in bounded steps: the sniff's memory is one step, whatever the
// file inflates to.
SniffResult SniffGzip(std::string_view data) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) return {false, "cannot sniff: zlib inflateInit2 failed"};
  constexpr size_t kStep = size_t{256} * 1024;
  constexpr size_t kInputSlice = size_t{1} << 20;  // avail_in is 32-bit: feed big files in slices
  std::vector<char> out(kStep);
  std::string head;  // the first kLegacyWindow bytes, for the fallback
  TopLevelKeyScanner scanner;
  size_t fed = 0;
  size_t total_out = 0;
  std::string gzip_error;
  while (true) {
    if (zs.avail_in == 0 && fed < data.size()) {
      const size_t slice = std::min(kInputSlice, data.size() - fed);
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + fed));
      zs.avail_in = static_cast<uInt>(slice);
      fed += slice;
    }
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    const int rc = inflate(&zs, Z_NO_FLUSH);
    const size_t produced = out.size() - zs.avail_out;
    const std::string_view piece(out.data(), produced);
    if (head.size() < kLegacyWindow) head.append(piece.substr(0, kLegacyWindow - head.size()));
    total_out += produced;
    if (scanner.Feed(piece) != TopLevelKeyScanner::State::kMore) break;
    if (total_out >= kSniffLimitBytes || rc == Z_STREAM_END) break;
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && fed == data.size()) {
      gzip_error = total_out == 0
                       ? "not a gzip stream: ends inside the gzip header"
                       : fmt::format("gzip stream truncated after {} inflated bytes", total_out);
      break;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      const char* why = zs.msg != nullptr ? zs.msg : "zlib error";
      gzip_error = total_out == 0 ? fmt::format("not a gzip stream: {}", why)
                                  : fmt::format("gzip stream damaged after {} inflated bytes: {}",
                                                total_out, why);
      break;
    }
  }
  inflateEnd(&zs);
  if (scanner.state() == TopLevelKeyScanner::State::kFound || LegacyMatch(scanner.state(), head)) {
    return {true, ""};
  }
  if (!gzip_error.empty()) return {false, gzip_error};
  return {false, NotTraceReason(scanner, total_out, total_out >= kSniffLimitBytes)};
}

}  // namespace

// NOLINTNEXTLINE(readability-function-cognitive-complexity): HACKING.md, "Complexity debt"
TopLevelKeyScanner::State TopLevelKeyScanner::Feed(std::string_view bytes) {
  for (size_t i = 0; i < bytes.size() && state_ == State::kMore; ++i) {
    const char c = bytes[i];
    if (in_string_) {
      if (escape_) {
        escape_ = false;
        in_key_ = false;  // an escaped key is not one of ours (they are plain ASCII)
      } else if (c == '\\') {
        escape_ = true;
      } else if (c == '"') {
        in_string_ = false;
        if (in_key_) {
          in_key_ = false;
          const bool ours = array_
                                ? std::find(std::begin(kEventKeys), std::end(kEventKeys), key_) !=
                                      std::end(kEventKeys)
                                : std::find(std::begin(kTraceKeys), std::end(kTraceKeys), key_) !=
                                      std::end(kTraceKeys);
          if (ours) state_ = State::kFound;
        }
      } else if (in_key_) {
        if (key_.size() < kMaxKeyLength) {
          key_.push_back(c);
        } else {
          in_key_ = false;
        }
      }
      continue;
    }
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (!started_) {
      static constexpr unsigned char kBom[] = {0xef, 0xbb, 0xbf};
      if (bom_left_ > 0 && static_cast<unsigned char>(c) == kBom[3 - bom_left_]) {
        --bom_left_;
        continue;
      }
      if (c != '{' && c != '[') {
        state_ = State::kNotObject;
        break;
      }
      started_ = true;
      array_ = c == '[';
      depth_ = 1;
      expect_key_ = !array_;
      continue;
    }
    // An array's first element must be an object (an event).
    if (array_ && depth_ == 1 && c != '{') {
      state_ = State::kEnded;
      break;
    }
    const int64_t key_depth = array_ ? 2 : 1;
    switch (c) {
      case '"':
        in_string_ = true;
        if (depth_ == key_depth && expect_key_) {
          in_key_ = true;
          key_.clear();
          expect_key_ = false;
        }
        break;
      case '{':
      case '[':
        ++depth_;
        if (array_ && depth_ == 2) expect_key_ = true;  // the first element opens
        break;
      case '}':
      case ']':
        // An array is decided by its first element: closed without "ph".
        if (--depth_ == (array_ ? 1 : 0)) state_ = State::kEnded;
        break;
      case ',':
        if (depth_ == key_depth) expect_key_ = true;
        break;
      default:
        break;  // ':', numbers, literals
    }
  }
  return state_;
}

SniffResult SniffKinetoTrace(const std::string& path) {
  auto file = MappedFile::Open(path);
  if (!file.ok()) {
    // The message starts with the path; the caller names it already.
    std::string message = file.status().message();
    if (message.rfind(path + ": ", 0) == 0) message.erase(0, path.size() + 2);
    return {false, message};
  }
  const std::string_view data = file->data();
  if (IsGzip(data)) return SniffGzip(data);
  SniffResult plain = SniffPlain(data);
  if (!plain.is_trace && path.ends_with(".gz") && !data.empty()) {
    // Named .gz but no gzip magic: a damaged header (or not a trace at all).
    plain.reason = fmt::format("not a gzip stream: starts with bytes {:02x} {:02x}, expected 1f 8b",
                               static_cast<unsigned char>(data[0]),
                               static_cast<unsigned char>(data.size() > 1 ? data[1] : 0));
  }
  return plain;
}

}  // namespace trainscope::formats
