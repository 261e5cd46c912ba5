// The chunked scan's own reader for plain events, in front of simdjson.
//
// Nearly every event of a Kineto or torch_npu trace is plain: an object of
// keys without escapes whose values are strings (escapes that stand for one
// byte unescaped into a buffer of the caller's), JSON numbers,
// true/false/null, or (the args, record_shapes' arrays) objects and arrays
// of those. This reader takes such events straight into a RawEvent with the
// fields and views CaptureEvent gives (event_fields.h; a string's text
// between its quotes, other tokens raw with the whitespace after them, as
// simdjson's raw_json_token), without simdjson's structural index and
// iterator: one pass over the bytes instead of two.
//
// It decides nothing about damage. What is not plain (an escape in a key,
// "\u" in a string read as text, a control character in a string, invalid
// UTF-8, a number JSON does not allow, nesting deeper than kMaxDepth, a
// missing value, any invalid JSON) stops it at that event, and the scan
// hands that event and the rest of the chunk to simdjson, which reads and
// judges them as it does without this reader (tests/unit/
// plain_event_reader_test.cc and the json_chunked fuzzer compare the two
// event by event, field by field).
#pragma once

#include <cstddef>
#include <string_view>

#include "formats/trace/chrome_json.h"

namespace trainscope::formats::trace {

class PlainEventReader {
 public:
  // Bytes after the chunk the reader may load (it uses only the first, the
  // NUL): less than simdjson's padding, which every chunk buffer has.
  static constexpr size_t kReadAhead = 32;
  // Objects and arrays nested deeper than this (the event itself is 1) are
  // left to simdjson, whose depth limit is far above it.
  static constexpr int kMaxDepth = 32;

  // |chunk|: "[" events "]" as the chunked scan builds it, followed by a
  // NUL and kReadAhead - 1 more readable bytes (simdjson's zeroed padding);
  // without the NUL, Next refuses the chunk. |unescaped|: room for
  // chunk.size() bytes, where strings with escapes are unescaped (the
  // events' views point into it as into the chunk).
  PlainEventReader(std::string_view chunk, char* unescaped)
      : begin_(chunk.data()),
        end_(chunk.data() + chunk.size()),
        p_(begin_),
        unescaped_(unescaped) {}

  enum class Step {
    kEvent,   // *ev holds the next event; its views point into the chunk
    kEnd,     // the closing bracket, the chunk's last byte, is reached: all read
    kLeave,   // the event at event_begin() is not plain: it and the rest are left
    kRefuse,  // the text around the events is not plain (the chunk's own
              // brackets, the commas): the chunk must be read by simdjson
              // whole, the events already returned dropped
  };
  // |ev| is made fresh first. The same |ev| on every call, untouched by the
  // caller in between, has only the views the last call wrote emptied
  // (an event sets ten or so of its ~40): clearing all ~600 bytes of it for
  // each of millions of events cost 5 % of a trace's read.
  Step Next(RawEvent* ev);

  // The views of an event Next wrote, to empty before the next one.
  class WrittenViews {
   public:
    void Note(std::string_view* view) {
      if (count_ < kMost) at_[count_] = view;
      ++count_;
    }
    // |ev| made fresh: the views noted since the last call emptied when
    // |ev| is the event of that call and they all were noted, else all of it.
    void Clear(RawEvent* ev);

   private:
    static constexpr size_t kMost = 64;
    std::string_view*
        at_[kMost];  // NOLINT(cppcoreguidelines-pro-type-member-init): [0, count_) set
    size_t count_ = 0;
    const RawEvent* event_ = nullptr;
  };

  // Offset in the chunk of the event Next last stopped at (its first byte;
  // kLeave: the event left); always after a '[' or ',' and optional
  // whitespace, so the byte before it can stand for a '['.
  size_t event_begin() const { return static_cast<size_t>(event_begin_ - begin_); }

 private:
  const char* begin_;
  const char* end_;
  const char* p_;    // next unread byte
  char* unescaped_;  // next free byte of the caller's buffer
  const char* event_begin_ = nullptr;
  bool started_ = false;  // the opening bracket is read
  WrittenViews written_;
};

}  // namespace trainscope::formats::trace
