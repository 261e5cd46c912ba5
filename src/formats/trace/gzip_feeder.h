// Streaming feeder for .json.gz traces: inflates piece by piece into a carry
// buffer and cuts it behind the newest complete event, so the inflated text
// is never held whole (memory ~ two chunks, whatever the file size).
//
// Hostile streams stay bounded too: the stream may be several gzip members
// (`cat a.gz b.gz`, pigz), each is inflated in turn; an event longer than
// |max_event_bytes| is read past (its bytes dropped as they come) and handed
// on as a skip (ChunkInfo::skip); whitespace between or before events is
// dropped as it comes (a document of 2 GB of spaces); and a stream that ends
// inside the event array (truncated or corrupt gzip) hands over its complete
// events and leaves the cut tail to the caller (truncated(), tail()).
#pragma once

#include <simdjson.h>
#include <zlib.h>

#include <optional>
#include <string>
#include <string_view>

#include "formats/trace/chunked_scan.h"
#include "formats/trace/json_layout.h"

namespace trainscope::formats::trace {

class GzipFeeder : public ChunkFeeder {
 public:
  GzipFeeder(std::string_view gz, size_t chunk_bytes, size_t max_event_bytes);
  ~GzipFeeder() override;
  GzipFeeder(const GzipFeeder&) = delete;
  GzipFeeder& operator=(const GzipFeeder&) = delete;

  // Inflates until the event array starts. False when the document has no
  // event array the chunked scan can use, or the text before it is longer
  // than max_event_bytes (the caller falls back).
  bool Start();
  const EventsStart& start() const { return start_; }

  bool Next(std::string_view* chunk) override;
  bool failed() const override { return failed_; }
  // With the share of the compressed input inflated so far.
  ChunkInfo info() const override;
  // After the last chunk: the document without its events (see FindEventsEnd).
  const simdjson::padded_string& metadata() const { return meta_; }

  // After the last chunk: the inflated text ended inside the event array.
  // The chunks held every complete event before |tail_offset()|; tail() is
  // the rest (an event cut short, or the array's end with damage after it),
  // for the event-wise scan. prefix() is the document before the array.
  bool truncated() const { return truncated_; }
  const simdjson::padded_string& tail() const { return tail_text_; }
  size_t tail_offset() const { return tail_offset_; }
  const std::string& prefix() const { return prefix_; }
  // The stream ended inside an event too long to keep (truncated() is set
  // and tail() is empty): where that event began.
  bool ended_in_long_event() const { return ended_in_long_event_; }
  size_t long_event_offset() const { return long_event_offset_; }

 private:
  // Appends up to |bytes| of inflated text to buf_ (dropping the consumed
  // front first); sets eof_ at the end of the last member or on a gzip error
  // (the text so far is kept, as LoadJsonFile does).
  void Inflate(size_t bytes);
  // Offset in the inflated document of buf_[pos].
  size_t Offset(size_t pos) const { return dropped_ + pos; }
  // After an event handed over alone: drops whitespace, one ',' and the
  // whitespace after it as they arrive. False when something else than an
  // event or the array's end follows.
  bool SkipSeparator();
  // buf_[head_, ...) holds max_event_bytes of text without a cut: hands
  // over the complete events at its front (found by the bracket matcher), or
  // skips the first when it is longer than max_event_bytes. False (failed_
  // or done_ set, or only whitespace dropped) when it hands over nothing.
  bool TakeLongEvent(std::string_view* chunk);
  // The stream ended and the array's end is not in the rest: hands over the
  // complete events, keeps the rest as tail().
  void EndTruncated(std::string_view pending);

  z_stream zs_{};
  bool zs_ready_ = false;
  size_t remaining_in_ = 0;  // compressed bytes not yet given to zlib
  size_t compressed_bytes_ = 0;
  size_t chunk_bytes_;
  size_t max_event_bytes_;
  std::string buf_;
  size_t head_ = 0;     // buf_[0, head_) is consumed
  size_t dropped_ = 0;  // inflated bytes erased from the front of buf_
  std::string prefix_;
  EventsStart start_;
  simdjson::padded_string meta_;
  std::optional<TextFeeder> tail_;  // the rest once the stream ended
  ChunkInfo info_;
  bool after_event_ = false;  // a separator comes next
  bool eof_ = false;
  bool done_ = false;
  bool failed_ = false;
  bool truncated_ = false;
  simdjson::padded_string tail_text_;
  size_t tail_offset_ = 0;
  bool ended_in_long_event_ = false;
  size_t long_event_offset_ = 0;
};

}  // namespace trainscope::formats::trace
