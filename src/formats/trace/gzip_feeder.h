// Streaming feeder for .json.gz traces: inflates piece by piece into a carry
// buffer and cuts it behind the newest complete event, so the inflated text
// is never held whole (memory ~ two chunks, whatever the file size).
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
  GzipFeeder(std::string_view gz, size_t chunk_bytes);
  ~GzipFeeder() override;
  GzipFeeder(const GzipFeeder&) = delete;
  GzipFeeder& operator=(const GzipFeeder&) = delete;

  // Inflates until the event array starts. False when the document has no
  // event array the chunked scan can use (the caller falls back).
  bool Start();
  const EventsStart& start() const { return start_; }

  bool Next(std::string_view* chunk, bool* bracketed) override;
  bool failed() const override { return failed_; }
  // After the last chunk: the document without its events (see FindEventsEnd).
  const simdjson::padded_string& metadata() const { return meta_; }

 private:
  // Appends up to |bytes| of inflated text to buf_; sets eof_ at the end of
  // the stream or on a gzip error (the text so far is kept, as LoadJsonFile
  // does; a cut-short document then fails FindEventsEnd).
  void Inflate(size_t bytes);

  z_stream zs_{};
  bool zs_ready_ = false;
  size_t remaining_in_ = 0;  // compressed bytes not yet given to zlib
  size_t chunk_bytes_;
  std::string buf_;
  size_t head_ = 0;  // buf_[0, head_) is consumed
  std::string prefix_;
  EventsStart start_;
  simdjson::padded_string meta_;
  std::optional<TextFeeder> tail_;  // the rest once the stream ended
  bool eof_ = false;
  bool done_ = false;
  bool failed_ = false;
};

}  // namespace trainscope::formats::trace
