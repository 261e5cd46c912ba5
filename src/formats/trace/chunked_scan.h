// Parallel scan of an event-array body cut into chunks of whole events.
//
// A feeder hands out the chunks in document order; worker threads copy each
// into their own padded buffer wrapped as "[" chunk "]" and parse it with
// their own simdjson parser (so events never cross a chunk and simdjson's
// 4 GiB document limit applies per chunk only) and convert its events into
// the sink's batch (EventSink::Convert); the calling thread commits the
// batches in document order. At most threads + 2 chunks are held
// at once, so memory is bounded by the chunk size, not the file size.
#pragma once

#include <cstddef>
#include <string_view>

#include "formats/trace/chrome_json.h"

namespace trainscope::formats::trace {

class ChunkFeeder {
 public:
  virtual ~ChunkFeeder() = default;
  // The next chunk (events separated by commas, no leading or trailing
  // comma), or false at the end. The view must stay valid until the next
  // call; calls come from one thread at a time.
  virtual bool Next(std::string_view* chunk) = 0;
  // The chunk was copied: its bytes are not needed any more.
  virtual void Release(std::string_view /*chunk*/) {}
  // The feeder could not cut its input (the caller falls back).
  virtual bool failed() const { return false; }
};

struct ChunkScanResult {
  bool ok = false;  // every chunk parsed completely
  size_t events = 0;
  size_t chunks = 0;
};

// Events reach |sink| with offset 0 (as on the whole-document fast path).
// On failure events of the chunks before the failed one may have been
// delivered: the caller resets the sink.
ChunkScanResult ScanChunks(ChunkFeeder* feeder, unsigned threads, EventSink* sink);

// Feeds the body of an in-memory (or memory-mapped) event array in chunks of
// about |chunk_bytes|. With |release_pages| the pages of copied chunks are
// dropped from the process (madvise), so a mapped file's resident size stays
// near the chunk size.
class TextFeeder : public ChunkFeeder {
 public:
  TextFeeder(std::string_view body, size_t chunk_bytes, bool release_pages)
      : body_(body), chunk_bytes_(chunk_bytes < 1 ? 1 : chunk_bytes), release_pages_(release_pages) {}
  bool Next(std::string_view* chunk) override;
  void Release(std::string_view chunk) override;

 private:

  std::string_view body_;
  size_t chunk_bytes_;
  bool release_pages_;
  size_t pos_ = 0;
};

}  // namespace trainscope::formats::trace
