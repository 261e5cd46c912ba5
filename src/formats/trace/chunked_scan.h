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
  // The next chunk, or false at the end; calls come from one thread at a
  // time. Either (|*bracketed| false) events separated by commas, no leading
  // or trailing comma, valid until the next call (the scan copies them into
  // "[" chunk "]"), or (|*bracketed| true) already "[" events "]" in place
  // with simdjson's padding readable after it, valid until Release.
  virtual bool Next(std::string_view* chunk, bool* bracketed) = 0;
  // The chunk's bytes are not needed any more (copied, or parsed and its
  // events committed).
  virtual void Release(std::string_view /*chunk*/) {}
  // The feeder could not cut its input (the caller falls back).
  virtual bool failed() const { return false; }

  // About the chunk the last Next returned (asked right after it, by the
  // same thread): the document offset of its first byte (not counting a '['
  // the feeder wrote), and, for an event the feeder read past without
  // handing it over (over ScanOptions::max_event_bytes; the chunk is then
  // empty), the ledger reason and detail to count it with.
  // |share_read|: the share of the whole input the feeder has read once
  // this chunk is in (0 < share <= 1), 0 where it cannot tell.
  struct ChunkInfo {
    size_t offset = 0;
    RowIssue skip = RowIssue::kNone;
    std::string_view skip_detail;
    double share_read = 0;
  };
  virtual ChunkInfo info() const { return {}; }
};

struct ChunkScanResult {
  bool ok = false;  // every chunk parsed completely
  size_t events = 0;
  size_t chunks = 0;
  size_t chunks_in_place = 0;
};

// Events reach |sink| with offset 0 (as on the whole-document fast path).
// A chunk simdjson refuses is read again event by event: events that do not
// parse are skipped and counted (RawEvent::skip, with their offset), the
// others are kept; only a chunk whose structure cannot be followed fails the
// scan. On failure events of the chunks before the failed one may have been
// delivered: the caller resets the sink.
ChunkScanResult ScanChunks(ChunkFeeder* feeder, unsigned threads, EventSink* sink);

// Feeds the body of an in-memory (or memory-mapped) event array in chunks of
// about |chunk_bytes|. With |release_pages| the pages of used chunks are
// dropped from the process (madvise), so a mapped file's resident size stays
// near the chunk size.
//
// In place: when the body lies in a copy-on-write mapping (|writable_body|,
// the same bytes as |body|, with at least one byte of the mapping before it
// and |readable_after| bytes after it), a chunk is bracketed where it lies:
// '[' over the byte before its first event, ']' over the one after its last,
// and parsed without the copy. That needs two separator bytes between chunks
// ("}, {", "},\n  {": Kineto's layout) and simdjson's padding after the ']';
// other chunks are copied. Both brackets of a gap are written when the chunk
// before it is cut, so no byte near a chunk changes while it is parsed.
class TextFeeder : public ChunkFeeder {
 public:
  TextFeeder(std::string_view body, size_t chunk_bytes, bool release_pages,
             char* writable_body = nullptr, size_t readable_after = 0)
      : body_(body),
        chunk_bytes_(chunk_bytes < 1 ? 1 : chunk_bytes),
        release_pages_(release_pages),
        writable_(writable_body),
        readable_after_(readable_after) {}
  bool Next(std::string_view* chunk, bool* bracketed) override;
  void Release(std::string_view chunk) override;
  ChunkInfo info() const override { return info_; }
  bool failed() const override { return failed_; }
  // The document offset of body[0] (for ChunkInfo::offset).
  void set_base_offset(size_t offset) { base_offset_ = offset; }
  // Events longer than this are handed over as skips (ChunkInfo::skip),
  // never copied or parsed; their pages are released.
  void set_max_event_bytes(size_t bytes) { max_event_bytes_ = bytes < 1 ? 1 : bytes; }

 private:
  bool Fail() {
    failed_ = true;
    return false;
  }
  // The share of the body up to |end| (ChunkInfo::share_read).
  double ShareThrough(size_t end) const {
    return body_.empty() ? 0 : static_cast<double>(end) / static_cast<double>(body_.size());
  }

  std::string_view body_;
  size_t chunk_bytes_;
  bool release_pages_;
  char* writable_;
  size_t readable_after_;
  size_t pos_ = 0;
  size_t base_offset_ = 0;
  size_t max_event_bytes_ = static_cast<size_t>(-1);
  ChunkInfo info_;
  bool failed_ = false;
  // Whether the byte before the next chunk may hold its '[' (the first
  // chunk's is the array's own '[' or whitespace after it).
  bool open_bracket_ready_ = true;
};

}  // namespace trainscope::formats::trace
