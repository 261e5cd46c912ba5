#include "formats/trace/event_wise_scan.h"

#include <fmt/format.h>

#include <utility>

#include "formats/trace/event_capture.h"
#include "formats/trace/json_layout.h"

namespace trainscope::formats::trace {
namespace {

namespace od = simdjson::ondemand;
using simdjson::error_code;

constexpr size_t kNpos = std::string_view::npos;

// End (one past) of the JSON value starting at s[i], or npos when truncated.
size_t ValueEnd(std::string_view s, size_t i) {
  if (i >= s.size()) return kNpos;
  if (s[i] == '"') return StringEnd(s, i);
  if (s[i] != '{' && s[i] != '[') {
    while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' &&
           s[i] != '\n' && s[i] != '\r' && s[i] != '\t') {
      ++i;
    }
    return i;
  }
  int depth = 0;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"') {
      i = StringEnd(s, i);
      if (i == kNpos) return kNpos;
      --i;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return kNpos;
}

// Offset of the first invalid UTF-8 sequence in s, or npos.
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
  return kNpos;
}

// The slice [begin, end) plus simdjson's padding: the document is padded,
// so those bytes are readable. Not the rest of the document: the parser
// sizes its index buffers by the capacity, and a per-event parse of a
// 1.4 GB file asked for 1.4 GB of them (13 s of page faults).
size_t Capacity(size_t begin, size_t end) { return end - begin + simdjson::SIMDJSON_PADDING; }

}  // namespace

void EventWiseScanner::RunEvents() { Events(0); }

void EventWiseScanner::Run() {
  size_t i = SkipSpace(s_, 0);
  if (i >= s_.size()) return Damage(i, "empty document");
  if (s_[i] == '[') {
    Events(i + 1);
    return;
  }
  if (s_[i] != '{') return Damage(i, "document is neither an object nor an array");
  i = SkipSpace(s_, i + 1);
  while (i < s_.size()) {
    if (s_[i] == '}') return;
    if (s_[i] != '"') return Damage(i, "expected a key");
    size_t key_end = StringEnd(s_, i);
    if (key_end == kNpos) return Damage(s_.size(), "truncated in a key");
    std::string_view key = s_.substr(i + 1, key_end - i - 2);
    i = SkipSpace(s_, key_end);
    if (i >= s_.size() || s_[i] != ':') return Damage(i, "expected ':'");
    i = SkipSpace(s_, i + 1);
    if (key == "traceEvents" && i < s_.size() && s_[i] == '[') {
      i = Events(i + 1);
      if (report_->damaged) return;
    } else {
      size_t end = ValueEnd(s_, i);
      if (end == kNpos) return Damage(s_.size(), "truncated");
      TopLevel(key, i, end);
      i = end;
    }
    i = SkipSpace(s_, i);
    if (i < s_.size() && s_[i] == ',') {
      i = SkipSpace(s_, i + 1);
      if (i < s_.size() && s_[i] == '}') return Damage(i, "trailing comma");
    }
  }
  Damage(s_.size(), "truncated (object not closed)");
}

void EventWiseScanner::Damage(size_t offset, std::string reason) {
  report_->damaged = true;
  report_->damage_offset = base_ + offset;
  report_->damage_reason = std::move(reason);
}

void EventWiseScanner::TopLevel(std::string_view key, size_t begin, size_t end) {
  char c = s_[begin];
  if (c != '{' && c != '[') {
    sink_->OnTopLevelScalar(key, s_.substr(begin, end - begin));
    return;
  }
  od::document doc;
  if (ThreadParser().iterate(s_.data() + begin, end - begin, Capacity(begin, end)).get(doc)) return;
  od::value v;
  if (doc.get_value().get(v)) return;
  // A damaged metadata block is not worth the load: OnTopLevel reads what it can.
  sink_->OnTopLevel(key, v);
}

size_t EventWiseScanner::Events(size_t i) {
  RawEvent ev;
  bool after_comma = false;
  while (true) {
    i = SkipSpace(s_, i);
    if (i >= s_.size()) {
      Damage(s_.size(), "truncated (event array not closed)");
      return i;
    }
    if (s_[i] == ']') {
      if (after_comma) Damage(i, "trailing comma");
      return i + 1;
    }
    if (s_[i] != '{') {
      Damage(i, "expected an event object");
      return i;
    }
    size_t end = ValueEnd(s_, i);
    if (end == kNpos) {
      size_t bad = FirstBadUtf8(s_.substr(i));
      if (bad != kNpos) {
        Damage(i + bad, "invalid UTF-8");
      } else {
        Damage(s_.size(), "truncated mid-event");
      }
      return i;
    }
    od::document doc;
    od::object obj;
    error_code e = ThreadParser().iterate(s_.data() + i, end - i, Capacity(i, end)).get(doc);
    if (!e) e = doc.get_object().get(obj);
    if (!e) e = CaptureEvent(obj, &ev);
    if (e) {
      size_t bad = FirstBadUtf8(s_.substr(i, end - i));
      if (bad != kNpos) {
        Damage(i + bad, "invalid UTF-8");
      } else {
        Damage(i, fmt::format("invalid event ({})", simdjson::error_message(e)));
      }
      return i;
    }
    if (!batch_) batch_ = sink_->NewBatch();
    sink_->Convert(ev, base_ + i, batch_.get());
    sink_->Commit(batch_.get());  // the next event's parse reuses the string buffer
    ++report_->events;
    i = SkipSpace(s_, end);
    after_comma = false;
    if (i < s_.size() && s_[i] == ',') {
      after_comma = true;
      ++i;
    } else if (i < s_.size() && s_[i] != ']') {
      Damage(i, "expected ',' or ']' after an event");
      return i;
    }
  }
}

}  // namespace trainscope::formats::trace
