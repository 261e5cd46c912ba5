#include "formats/trace/plain_event_reader.h"

#include <simdjson.h>

#include <cstdint>
#include <cstring>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "formats/trace/event_fields.h"
#include "formats/trace/json_layout.h"

namespace trainscope::formats::trace {
namespace {

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The readers below take the position of what they read and return the
// position after it, or nullptr when it is not plain. Positions are plain
// pointers passed by value, not a member: the string views they write into
// a RawEvent hold pointers too, and with the position in memory every such
// store made the compiler reload it.
//
// They never check the chunk's end: the chunk is followed by a NUL
// (PlainEventReader's precondition), which nothing below reads past (it is
// not whitespace, a digit, a literal's letter or a string's byte) and
// which, met where a value or a structural byte should be, makes the event
// not plain. A NUL inside the chunk does the same. Only the string scan
// loads bytes past the NUL (kReadAhead), and never uses them.

inline const char* SkipSpace(const char* p) {
  while (IsJsonSpace(*p)) ++p;
  return p;
}

// What a string's escapes may be: none (keys: simdjson unescapes a key
// with one, and keys never have them), any JSON escape (a value whose text
// is not used, or used raw), or the ones that stand for one byte, unescaped
// into the chunk's buffer (a value read as text; "\u" is left to simdjson,
// whose handling of surrogates is its own).
enum class Escapes { kNone, kSkip, kUnescape };

// Room for the unescaped strings of one chunk: each is shorter than its
// text, so the chunk's size is enough (PlainEventReader's constructor).
struct UnescapeBuffer {
  char* next;
};

inline bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// The rest of a string from |q|, its first backslash (ReadString). Byte by
// byte: strings with escapes are the call stacks and shapes of torch_npu's
// trace_view.json, a third of its events, and few of Kineto's.
const char* ReadEscapedString(const char* p, const char* q, bool non_ascii, Escapes escapes,
                              UnescapeBuffer* buffer, std::string_view* text) {
  if (escapes == Escapes::kNone) return nullptr;
  char* out = nullptr;
  if (escapes == Escapes::kUnescape) {
    out = buffer->next;
    std::memcpy(out, p + 1, static_cast<size_t>(q - p - 1));
    out += q - p - 1;
  }
  for (;;) {
    const auto c = static_cast<unsigned char>(*q);
    if (c == '"') break;
    if (c == '\\') {
      char byte = 0;
      switch (q[1]) {
        case '"':
        case '\\':
        case '/':
          byte = q[1];
          break;
        case 'b':
          byte = '\b';
          break;
        case 'f':
          byte = '\f';
          break;
        case 'n':
          byte = '\n';
          break;
        case 'r':
          byte = '\r';
          break;
        case 't':
          byte = '\t';
          break;
        case 'u':
          // Checked one by one: the chunk's NUL stops the checks in time.
          if (escapes == Escapes::kUnescape || !IsHex(q[2]) || !IsHex(q[3]) || !IsHex(q[4]) ||
              !IsHex(q[5])) {
            return nullptr;
          }
          q += 6;
          continue;
        default:
          return nullptr;
      }
      if (out != nullptr) *out++ = byte;
      q += 2;
      continue;
    }
    if (c < 0x20) return nullptr;  // a control character, the NUL at the end
    if (c >= 0x80) non_ascii = true;
    if (out != nullptr) *out++ = static_cast<char>(c);
    ++q;
  }
  // UTF-8 is checked on the text as written, as simdjson checks the chunk.
  if (non_ascii && !simdjson::validate_utf8(p + 1, static_cast<size_t>(q - p - 1))) return nullptr;
  if (out != nullptr) {
    *text = std::string_view(buffer->next, static_cast<size_t>(out - buffer->next));
    buffer->next = out;
  } else {
    *text = std::string_view(p + 1, static_cast<size_t>(q - p - 1));
  }
  return q + 1;
}

// The string at p ('"') without control characters, its text in *text (with
// escapes as |escapes| allows). Bytes >= 0x80 are checked as UTF-8 (simdjson
// checks the whole chunk; a character cannot span a quote, so checking each
// string's text is the same check).
inline const char* ReadString(const char* p, std::string_view* text, Escapes escapes,
                              UnescapeBuffer* buffer) {
  const char* q = p + 1;
  bool non_ascii = false;
  for (;;) {
#if defined(__AVX2__)
    const __m256i block = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
    const auto quotes = static_cast<uint32_t>(
        _mm256_movemask_epi8(_mm256_cmpeq_epi8(block, _mm256_set1_epi8('"'))));
    // Signed compare: control characters and bytes >= 0x80 are both "< 0x20".
    const auto odd = static_cast<uint32_t>(
        _mm256_movemask_epi8(_mm256_or_si256(_mm256_cmpeq_epi8(block, _mm256_set1_epi8('\\')),
                                             _mm256_cmpgt_epi8(_mm256_set1_epi8(0x20), block))));
    // The closing quote with nothing odd before it: the common case, decided
    // from the masks alone (reading the byte back would wait on the scan).
    const uint32_t before_quote = (quotes & (0 - quotes)) - 1;  // 32 ones when no quote
    if ((odd & before_quote) == 0) {
      if (quotes != 0) {
        q += __builtin_ctz(quotes);
        break;
      }
      q += 32;
      continue;
    }
    q += __builtin_ctz(odd);
#else
    const auto b = static_cast<unsigned char>(*q);
    if (b == '"') break;
    if (b != '\\' && b >= 0x20 && b < 0x80) {
      ++q;
      continue;
    }
#endif
    if (*q == '\\') return ReadEscapedString(p, q, non_ascii, escapes, buffer, text);
    if (static_cast<unsigned char>(*q) < 0x80) return nullptr;  // a control character, the NUL
    non_ascii = true;
    ++q;
  }
  *text = std::string_view(p + 1, static_cast<size_t>(q - p - 1));
  if (non_ascii && !simdjson::validate_utf8(text->data(), text->size())) return nullptr;
  return q + 1;
}

inline const char* SkipDigits(const char* p) {
  while (IsDigit(*p)) ++p;
  return p;
}

// A number as JSON writes it, or true, false or null, followed by
// whitespace or a structural byte.
inline const char* ReadScalar(const char* p) {
  if (*p == 't' || *p == 'f' || *p == 'n') {
    // Up to five bytes: the chunk's NUL stops the compare before its end.
    if (std::memcmp(p, "true", 4) == 0 || std::memcmp(p, "null", 4) == 0) {
      p += 4;
    } else if (std::memcmp(p, "false", 5) == 0) {
      p += 5;
    } else {
      return nullptr;
    }
  } else {
    if (*p == '-') ++p;
    if (*p == '0') {
      ++p;
    } else {
      if (!IsDigit(*p)) return nullptr;
      p = SkipDigits(p + 1);
    }
    if (*p == '.') {
      if (!IsDigit(p[1])) return nullptr;
      p = SkipDigits(p + 2);
    }
    if (*p == 'e' || *p == 'E') {
      ++p;
      if (*p == '+' || *p == '-') ++p;
      if (!IsDigit(*p)) return nullptr;
      p = SkipDigits(p + 1);
    }
  }
  if (!IsJsonSpace(*p) && *p != ',' && *p != '}' && *p != ']') return nullptr;
  return p;
}

// Any JSON value at p, skipped (the position after it, before any
// whitespace). |depth|: the value's own.
const char* SkipValue(const char* p, int depth) {
  const char open = *p;
  if (open == '"') {
    std::string_view ignored;
    return ReadString(p, &ignored, Escapes::kSkip, nullptr);
  }
  if (open != '{' && open != '[') return ReadScalar(p);
  if (depth > PlainEventReader::kMaxDepth) return nullptr;
  const char close = open == '{' ? '}' : ']';
  p = SkipSpace(p + 1);
  if (*p == close) return p + 1;
  for (;;) {
    if (close == '}') {
      std::string_view key;
      if (*p != '"' || (p = ReadString(p, &key, Escapes::kSkip, nullptr)) == nullptr) {
        return nullptr;
      }
      p = SkipSpace(p);
      if (*p != ':') return nullptr;
      p = SkipSpace(p + 1);
    }
    if ((p = SkipValue(p, depth + 1)) == nullptr) return nullptr;
    p = SkipSpace(p);
    if (*p == ',') {
      p = SkipSpace(p + 1);
      continue;
    }
    if (*p != close) return nullptr;
    return p + 1;
  }
}

// The event being read and the record of the views it writes.
struct EventOut {
  RawEvent* ev;
  PlainEventReader::WrittenViews* written;

  void Set(std::string_view* into, std::string_view value) {
    *into = value;
    written->Note(into);
  }
};

const char* ReadFields(const char* p, EventOut out, bool args, int depth, UnescapeBuffer* buffer);

// A string's or scalar's value into |target|: |text| is what kText takes,
// |raw| the raw token (with the whitespace after it).
inline void Assign(FieldTarget target, EventOut out, std::string_view text, std::string_view raw) {
  switch (target.read) {
    case FieldRead::kText:
      out.Set(target.into, text);
      break;
    case FieldRead::kRaw:
      out.Set(target.into, raw);
      break;
    case FieldRead::kArgs:
      out.ev->note = RowIssue::kArgsNotObject;  // "args": "x" / 5 / null
      break;
    case FieldRead::kArray:  // an array's raw text only; anything else is left out
    case FieldRead::kSkip:
      break;
  }
}

// The value of a field at p, read as |target| says (what CaptureEvent's
// Token, RawToken, RawArray and CaptureArgs make of it); returns the next
// non-space byte after it. |depth|: that of the object holding the field.
inline const char* ReadValue(const char* p, FieldTarget target, EventOut out, int depth,
                             UnescapeBuffer* buffer) {
  const char* start = p;
  if (*p == '"') {
    std::string_view text;
    const Escapes escapes = target.read == FieldRead::kText ? Escapes::kUnescape : Escapes::kSkip;
    if ((p = ReadString(p, &text, escapes, buffer)) == nullptr) return nullptr;
    p = SkipSpace(p);
    Assign(target, out, text, std::string_view(start, static_cast<size_t>(p - start)));
    return p;
  }
  if (*p == '{') {
    if (target.read == FieldRead::kArgs) {
      out.ev->has_args = true;
      if (depth + 1 > PlainEventReader::kMaxDepth) return nullptr;
      p = ReadFields(p, out, /*args=*/true, depth + 1, buffer);
    } else {
      p = SkipValue(p, depth + 1);  // text and raw targets take nothing of an object
    }
    return p == nullptr ? nullptr : SkipSpace(p);
  }
  if (*p == '[') {
    if ((p = SkipValue(p, depth + 1)) == nullptr) return nullptr;
    if (target.read == FieldRead::kArray) {
      // From '[' to its ']': simdjson's raw_json with the whitespace trimmed.
      out.Set(target.into, std::string_view(start, static_cast<size_t>(p - start)));
    } else if (target.read == FieldRead::kArgs) {
      out.ev->note = RowIssue::kArgsNotObject;
    }
    return SkipSpace(p);
  }
  if ((p = ReadScalar(p)) == nullptr) return nullptr;
  p = SkipSpace(p);
  // A scalar's raw token runs to the next structural byte, whitespace
  // included, and is what kText takes as well as kRaw.
  const std::string_view raw(start, static_cast<size_t>(p - start));
  Assign(target, out, raw, raw);
  return p;
}

// The fields of the object at p ('{'), read into |ev| as the event's
// (|args| false) or as its "args" (true); returns the position after '}'.
const char* ReadFields(const char* p, EventOut out, bool args, int depth, UnescapeBuffer* buffer) {
  p = SkipSpace(p + 1);
  if (*p == '}') return p + 1;
  for (;;) {
    std::string_view key;
    if (*p != '"' || (p = ReadString(p, &key, Escapes::kNone, buffer)) == nullptr) return nullptr;
    p = SkipSpace(p);
    if (*p != ':') return nullptr;
    p = SkipSpace(p + 1);
    const FieldTarget target = args ? ArgsFieldOf(key, out.ev) : EventFieldOf(key, out.ev);
    if ((p = ReadValue(p, target, out, depth, buffer)) == nullptr) return nullptr;
    if (*p == ',') {
      p = SkipSpace(p + 1);
      continue;
    }
    if (*p != '}') return nullptr;
    return p + 1;
  }
}

}  // namespace

PlainEventReader::Step PlainEventReader::Next(RawEvent* ev) {
  const char* p = p_;
  if (!started_) {
    // Without the NUL after the chunk the readers above could run past it.
    if (*end_ != '\0' || *p != '[') return Step::kRefuse;
    started_ = true;
    p = SkipSpace(p + 1);
    if (*p == ']') {
      p_ = p + 1;
      return p_ == end_ ? Step::kEnd : Step::kRefuse;
    }
  } else {
    // After an event: a comma and the next one, or the closing bracket as
    // the chunk's last byte.
    p = SkipSpace(p);
    if (*p == ']') {
      p_ = p + 1;
      return p_ == end_ ? Step::kEnd : Step::kRefuse;
    }
    if (*p != ',') return Step::kRefuse;
    p = SkipSpace(p + 1);
    if (*p == ']') return Step::kRefuse;  // a trailing comma
  }
  event_begin_ = p;
  if (*p != '{') return Step::kLeave;
  written_.Clear(ev);
  UnescapeBuffer buffer{unescaped_};
  if ((p = ReadFields(p, EventOut{ev, &written_}, /*args=*/false, 1, &buffer)) == nullptr) {
    return Step::kLeave;
  }
  unescaped_ = buffer.next;
  p_ = p;
  return Step::kEvent;
}

void PlainEventReader::WrittenViews::Clear(RawEvent* ev) {
  if (ev != event_ || count_ > kMost) {
    ResetEvent(ev);
  } else {
    for (size_t i = 0; i < count_; ++i) *at_[i] = std::string_view();
    ev->has_args = false;
    ev->note = RowIssue::kNone;
  }
  event_ = ev;
  count_ = 0;
}

}  // namespace trainscope::formats::trace
