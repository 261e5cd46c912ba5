#include "formats/trace/json_layout.h"

#include <cstring>
#include <string>
#include <utility>

#include "formats/trace/event_capture.h"

namespace trainscope::formats::trace {
namespace {

namespace od = simdjson::ondemand;
using simdjson::error_code;

// The metadata that can follow the event array (traceName, displayTimeUnit,
// baseTimeNanoseconds, ...) is small; candidates further back are not tried.
constexpr int kMaxEndCandidates = 64;
constexpr size_t kMaxSuffixBytes = 16u << 20;

// Keys an event object may start with (Kineto writes "ph" or "name" first,
// torch_npu "name"; the others cover hand-written and converted traces).
bool IsEventKey(std::string_view key) {
  switch (key.size()) {
    case 1:
      return key == "s";
    case 2:
      return key == "ph" || key == "ts" || key == "id" || key == "bp";
    case 3:
      return key == "cat" || key == "pid" || key == "tid" || key == "dur";
    case 4:
      return key == "name" || key == "args";
    default:
      return false;
  }
}

// Whether body[close] == '}' is followed by `ws , ws { ws "event-key" ws :`;
// sets the cut on success.
bool IsCutAt(std::string_view body, size_t close, size_t* chunk_end, size_t* next_begin) {
  size_t i = SkipSpace(body, close + 1);
  if (i >= body.size() || body[i] != ',') return false;
  size_t brace = SkipSpace(body, i + 1);
  if (brace >= body.size() || body[brace] != '{') return false;
  size_t quote = SkipSpace(body, brace + 1);
  if (quote >= body.size() || body[quote] != '"') return false;
  size_t key_end = body.find('"', quote + 1);
  if (key_end == std::string_view::npos || key_end - quote > 8) return false;
  if (!IsEventKey(body.substr(quote + 1, key_end - quote - 1))) return false;
  size_t colon = SkipSpace(body, key_end + 1);
  if (colon >= body.size() || body[colon] != ':') return false;
  *chunk_end = close + 1;
  *next_begin = brace;
  return true;
}

// Consumes |array| (so that the iterator moves past it) and fails unless it
// is empty.
error_code ExpectEmpty(od::array& array) {
  for (auto element : array) {
    if (element.error()) return element.error();
    return simdjson::TAPE_ERROR;
  }
  return simdjson::SUCCESS;
}

}  // namespace

size_t SkipSpace(std::string_view s, size_t i) {
  while (i < s.size() && IsJsonSpace(s[i])) ++i;
  return i;
}

size_t StringEnd(std::string_view s, size_t i) {
  // The next quote after an even run of backslashes: memchr from quote to
  // quote, since most of a trace's bytes are in strings.
  const char* const begin = s.data();
  const char* p = begin + i + 1;
  const char* const end = begin + s.size();
  while (p < end) {
    const auto* quote = static_cast<const char*>(std::memchr(p, '"', static_cast<size_t>(end - p)));
    if (quote == nullptr) break;
    const char* run = quote;
    while (run > p && run[-1] == '\\') --run;
    p = quote + 1;
    if ((quote - run) % 2 == 0) return static_cast<size_t>(p - begin);
  }
  return std::string_view::npos;
}

size_t ValueEnd(std::string_view s, size_t i) {
  if (i >= s.size()) return std::string_view::npos;
  if (s[i] == '"') return StringEnd(s, i);
  if (s[i] != '{' && s[i] != '[') {
    while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']' && !IsJsonSpace(s[i])) ++i;
    return i;
  }
  ValueEndScanner scanner;
  size_t end = scanner.Feed(s.substr(i));
  return end == std::string_view::npos ? std::string_view::npos : i + end;
}

size_t ValueEndScanner::Feed(std::string_view bytes) {
  const char* p = bytes.data();
  const size_t n = bytes.size();
  for (size_t i = 0; i < n; ++i) {
    if (in_string_) {
      if (escape_) {
        escape_ = false;
      } else if (p[i] == '\\') {
        escape_ = true;
      } else if (p[i] == '"') {
        in_string_ = false;
      }
      continue;
    }
    const char c = p[i];
    if (c == '"') {
      in_string_ = true;
    } else if (c == '{' || c == '[') {
      ++depth_;
    } else if (c == '}' || c == ']') {
      if (--depth_ <= 0) return i + 1;
    }
  }
  return std::string_view::npos;
}

bool BracketsPair(std::string_view s) {
  std::string open;  // the kinds of the brackets open, innermost last
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') {
      const size_t end = StringEnd(s, i);
      if (end == std::string_view::npos) return true;  // left open: not a mismatch
      i = end - 1;
    } else if (c == '{' || c == '[') {
      open.push_back(c);
    } else if (c == '}' || c == ']') {
      if (open.empty() || open.back() != (c == '}' ? '{' : '[')) return false;
      open.pop_back();
    }
  }
  return true;
}

size_t FirstBadUtf8(std::string_view s) {
  size_t i = 0;
  const auto* u = reinterpret_cast<const unsigned char*>(s.data());
  while (i < s.size()) {
    unsigned char c = u[i];
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || (n == 2 && c < 0xC2) || i + n > s.size()) return i;
    for (size_t k = 1; k < n; ++k) {
      if ((u[i + k] & 0xC0) != 0x80) return i;
    }
    i += n;
  }
  return std::string_view::npos;
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): HACKING.md, "Complexity debt"
LocateResult LocateEventsStart(std::string_view head, bool complete, EventsStart* out) {
  const LocateResult need_more = complete ? LocateResult::kUnsupported : LocateResult::kNeedMore;
  size_t i = SkipSpace(head, 0);
  if (i >= head.size()) return need_more;
  if (head[i] == '[') {
    *out = EventsStart{true, i + 1};
    return LocateResult::kFound;
  }
  if (head[i] != '{') return LocateResult::kUnsupported;
  // Walk the top-level object; only keys at depth 1 matter, nested values
  // are skipped by bracket depth (strings skipped whole).
  int depth = 0;
  char previous = 0;  // last significant character
  for (; i < head.size(); ++i) {
    char c = head[i];
    if (c == '"') {
      size_t end = StringEnd(head, i);
      if (end == std::string_view::npos) return need_more;
      if (depth == 1 && (previous == '{' || previous == ',')) {
        std::string_view key = head.substr(i + 1, end - i - 2);
        size_t colon = SkipSpace(head, end);
        if (colon >= head.size()) return need_more;
        if (head[colon] != ':') return LocateResult::kUnsupported;
        if (key == "traceEvents") {
          size_t open = SkipSpace(head, colon + 1);
          if (open >= head.size()) return need_more;
          if (head[open] != '[') return LocateResult::kUnsupported;
          *out = EventsStart{false, open + 1};
          return LocateResult::kFound;
        }
      }
      i = end - 1;
      previous = '"';
      continue;
    }
    if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return LocateResult::kUnsupported;  // no traceEvents
    }
    if (!IsJsonSpace(c)) previous = c;
  }
  return need_more;
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): HACKING.md, "Complexity debt"
error_code ReadMetadata(const simdjson::padded_string& meta, EventSink* sink) {
  od::parser parser;
  od::document doc;
  if (error_code e = parser.iterate(meta).get(doc)) return e;
  od::json_type type;
  if (error_code e = doc.type().get(type)) return e;
  if (type == od::json_type::array) {
    od::array events;
    if (error_code e = doc.get_array().get(events)) return e;
    if (error_code e = ExpectEmpty(events)) return e;
  } else if (type == od::json_type::object) {
    od::object top;
    if (error_code e = doc.get_object().get(top)) return e;
    int event_arrays = 0;
    for (auto field_result : top) {
      od::field field;
      if (error_code e = std::move(field_result).get(field)) return e;
      std::string_view key;
      if (error_code e = field.unescaped_key().get(key)) return e;
      od::value v = field.value();
      od::json_type vt;
      if (error_code e = v.type().get(vt)) return e;
      if (key == "traceEvents") {
        // Only the emptied array may be there: a second event array would be
        // read by the whole-document scan, so leave such files to it.
        if (++event_arrays > 1 || vt != od::json_type::array) return simdjson::TAPE_ERROR;
        od::array events;
        if (error_code e = v.get_array().get(events)) return e;
        if (error_code e = ExpectEmpty(events)) return e;
        continue;
      }
      if (sink == nullptr) continue;
      if (vt == od::json_type::object || vt == od::json_type::array) {
        sink->OnTopLevel(key, v);
      } else {
        sink->OnTopLevelScalar(key, v.raw_json_token());
      }
    }
    if (event_arrays != 1) return simdjson::TAPE_ERROR;
  } else {
    return simdjson::TAPE_ERROR;
  }
  if (!AtDocumentEnd(doc)) return simdjson::TRAILING_CONTENT;
  return simdjson::SUCCESS;
}

size_t FindEventsEnd(std::string_view prefix, std::string_view body,
                     simdjson::padded_string* meta) {
  size_t limit = body.size() > kMaxSuffixBytes ? body.size() - kMaxSuffixBytes : 0;
  size_t pos = body.size();
  for (int tries = 0; tries < kMaxEndCandidates; ++tries) {
    size_t close = body.find_last_of(']', pos == 0 ? 0 : pos - 1);
    if (pos == 0 || close == std::string_view::npos || close < limit) return std::string_view::npos;
    std::string_view suffix = body.substr(close + 1);
    std::string text;
    text.reserve(prefix.size() + 1 + suffix.size());
    text.append(prefix).append("]").append(suffix);
    simdjson::padded_string candidate(text);
    if (ReadMetadata(candidate, nullptr) == simdjson::SUCCESS) {
      *meta = std::move(candidate);
      return close;
    }
    pos = close;
  }
  return std::string_view::npos;
}

bool NextEventBoundary(std::string_view body, size_t from, size_t* chunk_end, size_t* next_begin) {
  while (from < body.size()) {
    const void* hit = std::memchr(body.data() + from, '}', body.size() - from);
    if (hit == nullptr) return false;
    size_t close = static_cast<size_t>(static_cast<const char*>(hit) - body.data());
    if (IsCutAt(body, close, chunk_end, next_begin)) return true;
    from = close + 1;
  }
  return false;
}

bool LastEventBoundary(std::string_view body, size_t from, size_t* chunk_end, size_t* next_begin) {
  size_t pos = body.size();
  while (pos > from) {
    size_t close = body.find_last_of('}', pos - 1);
    if (close == std::string_view::npos || close < from) return false;
    if (IsCutAt(body, close, chunk_end, next_begin)) return true;
    pos = close;
  }
  return false;
}

}  // namespace trainscope::formats::trace
