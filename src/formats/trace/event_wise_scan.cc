#include "formats/trace/event_wise_scan.h"

#include <fmt/format.h>

#include <utility>

#include "formats/trace/event_capture.h"
#include "formats/trace/json_layout.h"

namespace trainscope::formats::trace {
namespace {

namespace od = simdjson::ondemand;
using simdjson::error_code;

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
    i = Events(i + 1);
    if (!stopped_) TrailingData(i);
    return;
  }
  if (s_[i] != '{') return Damage(i, "document is neither an object nor an array");
  i = SkipSpace(s_, i + 1);
  while (i < s_.size()) {
    if (s_[i] == '}') return TrailingData(i + 1);
    if (s_[i] != '"') return Damage(i, "expected a key");
    size_t key_end = StringEnd(s_, i);
    if (key_end == std::string_view::npos) return Damage(s_.size(), "truncated in a key");
    std::string_view key = s_.substr(i + 1, key_end - i - 2);
    i = SkipSpace(s_, key_end);
    if (i >= s_.size() || s_[i] != ':') return Damage(i, "expected ':'");
    i = SkipSpace(s_, i + 1);
    if (key == "traceEvents" && i < s_.size() && s_[i] == '[') {
      i = Events(i + 1);
      if (stopped_) return;
    } else {
      size_t end = ValueEnd(s_, i);
      if (end == std::string_view::npos) return Damage(s_.size(), "truncated");
      TopLevel(key, i, end);
      i = end;
    }
    i = SkipSpace(s_, i);
    if (i < s_.size() && s_[i] == ',') {
      i = SkipSpace(s_, i + 1);
      if (i < s_.size() && s_[i] == '}') return Damage(i, "trailing comma");
    } else if (i < s_.size() && s_[i] != '}') {
      return Damage(i, "expected ',' or '}' after a top-level value");
    }
  }
  Damage(s_.size(), "truncated (object not closed)");
}

void EventWiseScanner::TrailingData(size_t i) {
  i = SkipSpace(s_, i);
  if (i < s_.size()) Damage(i, "trailing data after the JSON document");
}

void EventWiseScanner::Damage(size_t offset, std::string reason) {
  stopped_ = true;  // and what stopped the read is the damage reported
  report_->damaged = true;
  report_->damage_read_on = false;
  report_->damage_offset = base_ + offset;
  report_->damage_reason = std::move(reason);
}

void EventWiseScanner::TopLevel(std::string_view key, size_t begin, size_t end) {
  char c = s_[begin];
  if (c != '{' && c != '[') {
    sink_->OnTopLevelScalar(key, s_.substr(begin, end - begin));
    return;
  }
  // A metadata value longer than an event may be is not parsed (it would
  // size the parser's buffers to it); the events do not depend on it.
  if (end - begin > max_event_bytes_) return;
  od::document doc;
  od::value v;
  error_code e =
      ThreadParser().iterate(s_.data() + begin, end - begin, Capacity(begin, end)).get(doc);
  if (!e) e = doc.get_value().get(v);
  if (e) {
    // Reported (the whole-document parse fails on it too) but not fatal:
    // the events are elsewhere.
    if (!report_->damaged) {
      report_->damaged = true;
      report_->damage_read_on = true;
      report_->damage_offset = base_ + begin;
      report_->damage_reason = fmt::format("invalid value of top-level key \"{}\" ({})", key,
                                           simdjson::error_message(e));
    }
    return;
  }
  // A damaged metadata block is not worth the load: OnTopLevel reads what it can.
  sink_->OnTopLevel(key, v);
}

void EventWiseScanner::Deliver(const RawEvent& ev, size_t offset) {
  if (!batch_) batch_ = sink_->NewBatch();
  sink_->Convert(ev, base_ + offset, batch_.get());
  sink_->Commit(batch_.get());  // the next event's parse reuses the string buffer
  ++report_->events;
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
    size_t end = ValueEnd(s_, i);
    if (end == std::string_view::npos) {
      size_t bad = FirstBadUtf8(s_.substr(i));
      if (bad != std::string_view::npos) {
        Damage(i + bad, "invalid UTF-8");
      } else {
        Damage(s_.size(), "truncated mid-event");
      }
      return i;
    }
    if (s_[i] != '{') {
      // A number, string or array where an event belongs: skipped and counted.
      if (end == i) {
        Damage(i, "expected an event object");
        return i;
      }
      Deliver(SkippedEvent(RowIssue::kEventNotObject), i);
      ++report_->unreadable_events;
    } else if (end - i > max_event_bytes_) {
      Deliver(SkippedEvent(RowIssue::kEventTooLong,
                           "longer than the event size limit (TRAINSCOPE_MAX_EVENT_BYTES)"),
              i);
      ++report_->unreadable_events;
    } else {
      od::document doc;
      od::object obj;
      error_code e = ThreadParser().iterate(s_.data() + i, end - i, Capacity(i, end)).get(doc);
      if (!e) e = doc.get_object().get(obj);
      if (!e) e = CaptureEvent(obj, &ev);
      if (e) {
        // The event's extent is known: skip it with the reason and read on.
        Deliver(FirstBadUtf8(s_.substr(i, end - i)) != std::string_view::npos
                    ? SkippedEvent(RowIssue::kEventInvalidUtf8)
                    : SkippedEvent(RowIssue::kEventInvalid, simdjson::error_message(e)),
                i);
        ++report_->unreadable_events;
      } else {
        Deliver(ev, i);
      }
    }
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
