// Parallel scan of an event-array body cut into chunks of whole events.
//
// A feeder hands out the chunks in document order; worker threads copy each
// into their own padded buffer wrapped as "[" chunk "]" (a file's chunk read
// with pread, not through its mapping) and parse it with
// their own simdjson parser (so events never cross a chunk and simdjson's
// 4 GiB document limit applies per chunk only) and convert its events into
// the sink's batch (EventSink::Convert); the calling thread commits the
// batches in document order. At most threads + 2 chunks are held
// at once, so memory is bounded by the chunk size, not the file size.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

#include "formats/trace/chrome_json.h"

namespace trainscope::formats::trace {

class ChunkFeeder {
 public:
  virtual ~ChunkFeeder() = default;
  // The next chunk, or false at the end; calls come from one thread at a
  // time: events separated by commas, no leading or trailing comma. The scan
  // copies it into "[" chunk "]": at once (under the feeder's lock) unless
  // chunks_stay(), else later on the worker that parses it.
  virtual bool Next(std::string_view* chunk) = 0;
  // Whether a chunk stays valid until its Release, not only until the next
  // call (a document in memory or in a file; a streaming feeder reuses its
  // buffer). Such chunks are copied by the workers, in parallel.
  virtual bool chunks_stay() const { return false; }
  // Copies |length| bytes at document offset |offset| (a chunk Next
  // returned, chunks_stay()) into |out| without reading the mapped view: a
  // file's pread, where the first touch of a mapped page costs a fault (on
  // this project's VMs the faults of a mapped trace cost more than parsing
  // it). False: the caller copies the view.
  virtual bool ReadChunk(size_t /*offset*/, size_t /*length*/, char* /*out*/) const {
    return false;
  }
  // The chunk's bytes are not needed any more (copied). Called from the
  // worker that copied it for chunks_stay() feeders: must not change the
  // feeder's state.
  virtual void Release(std::string_view /*chunk*/) const {}
  // The feeder could not cut its input (the caller falls back).
  virtual bool failed() const { return false; }

  // About the chunk the last Next returned (asked right after it, by the
  // same thread): the document offset of its first byte, and, for an event the feeder read past
  // without handing it over (over ScanOptions::max_event_bytes; the chunk is then empty), the
  // ledger reason and detail to count it with. |share_read|: the share of the whole input the
  // feeder has read once this chunk is in (0 < share <= 1), 0 where it cannot tell.
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
  // Of |events|, those skipped because they could not be read (not an
  // object, over the size limit, unparsable): ScanReport::unreadable_events.
  size_t unreadable_events = 0;
  size_t chunks = 0;
  size_t chunks_read = 0;   // copied with ReadChunk (pread), not from the mapped view
  size_t plain_events = 0;  // of |events|, read by PlainEventReader (not simdjson)
};

// Events reach |sink| with offset 0 (as on the whole-document fast path).
// A chunk simdjson refuses is read again event by event: events that do not
// parse are skipped and counted (RawEvent::skip, with their offset), the
// others are kept; only a chunk whose structure cannot be followed fails the
// scan. On failure events of the chunks before the failed one may have been
// delivered: the caller resets the sink.
// |plain_event_reader|: plain events are read by PlainEventReader before
// simdjson (ScanOptions::plain_event_reader).
ChunkScanResult ScanChunks(ChunkFeeder* feeder, unsigned threads, EventSink* sink,
                           bool plain_event_reader);

// Feeds the body of an in-memory (or memory-mapped) event array in chunks of
// about |chunk_bytes|. With |release_pages| the pages of used chunks are
// dropped from the process (madvise), so a mapped file's resident size stays
// near the chunk size.
//
// Chunks stay (the body is a whole document): the workers copy them in
// parallel, with |read_at| (set_read_at) where the body is a file's mapping,
// so that the mapping itself is touched only near the cuts.
class TextFeeder : public ChunkFeeder {
 public:
  TextFeeder(std::string_view body, size_t chunk_bytes, bool release_pages)
      : body_(body),
        chunk_bytes_(chunk_bytes < 1 ? 1 : chunk_bytes),
        release_pages_(release_pages) {}
  bool Next(std::string_view* chunk) override;
  bool chunks_stay() const override { return true; }
  bool ReadChunk(size_t offset, size_t length, char* out) const override {
    return read_at_ && read_at_(offset, length, out);
  }
  void Release(std::string_view chunk) const override;
  ChunkInfo info() const override { return info_; }
  bool failed() const override { return failed_; }
  // Reads [offset, offset + length) of the document (document offsets, as
  // ChunkInfo::offset) into |out|; false when it cannot.
  using ReadAt = std::function<bool(size_t offset, size_t length, char* out)>;
  void set_read_at(ReadAt read_at) { read_at_ = std::move(read_at); }
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
  ReadAt read_at_;
  size_t pos_ = 0;
  size_t base_offset_ = 0;
  size_t max_event_bytes_ = static_cast<size_t>(-1);
  ChunkInfo info_;
  bool failed_ = false;
};

}  // namespace trainscope::formats::trace
