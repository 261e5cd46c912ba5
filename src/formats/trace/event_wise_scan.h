// The reference event-wise scan of a Chrome-trace document: a string-aware
// bracket matcher finds each event's extent and simdjson parses that slice
// alone. An event that does not parse (invalid UTF-8, a lone surrogate, a
// raw NUL or other control byte, an unescaped quote) but whose extent is
// known is skipped and counted (RawEvent::skip) and the read goes on; damage
// to the structure (truncation, a missing comma, trailing data) stops it with
// an exact offset (to the byte for invalid UTF-8 and truncation) and every
// event before it is kept. Used when the fast paths cannot prove a document intact
// (chrome_json.h), and for the tail of a truncated file.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "formats/trace/chrome_json.h"

namespace trainscope::formats::trace {

class EventWiseScanner {
 public:
  // |s| must be padded (simdjson::SIMDJSON_PADDING readable bytes after it);
  // |base| is the offset of s[0] in the file: reported offsets are file
  // offsets. Events reach |sink| one committed batch each (the next event's
  // parse reuses the parser's string buffer).
  // Events longer than |max_event_bytes| are skipped unparsed ("event over
  // the size limit").
  EventWiseScanner(std::string_view s, EventSink* sink, ScanReport* report, size_t base = 0,
                   size_t max_event_bytes = static_cast<size_t>(-1))
      : s_(s), sink_(sink), report_(report), base_(base), max_event_bytes_(max_event_bytes) {}

  // A whole document: an object with `traceEvents` (other keys go to the
  // sink's OnTopLevel*) or a top-level array.
  void Run();
  // The body of an event array from s[0] on (just after its '[').
  void RunEvents();

 private:
  // Damage that ends the read (the structure cannot be followed past it).
  void Damage(size_t offset, std::string reason);
  // Damage unless only whitespace follows s_[i, ...).
  void TrailingData(size_t i);
  void Deliver(const RawEvent& ev, size_t offset);
  void TopLevel(std::string_view key, size_t begin, size_t end);
  // Returns the offset after the closing ']' (or sets the damage).
  size_t Events(size_t i);

  std::string_view s_;
  EventSink* sink_;
  ScanReport* report_;
  size_t base_;
  size_t max_event_bytes_;
  std::unique_ptr<EventBatch> batch_;
  bool stopped_ = false;
};

}  // namespace trainscope::formats::trace
