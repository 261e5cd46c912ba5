#include "formats/trace/chunked_scan.h"

#include <simdjson.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/ordered_work.h"
#include "core/page_release.h"
#include "formats/trace/event_capture.h"
#include "formats/trace/json_layout.h"
#include "formats/trace/plain_event_reader.h"

namespace trainscope::formats::trace {
namespace {

namespace od = simdjson::ondemand;
using simdjson::error_code;

// "[" chunk "]" plus simdjson's padding, reused chunk after chunk.
class PaddedChunk {
 public:
  void Assign(std::string_view chunk) {
    char* body = Prepare(chunk.size());
    std::memcpy(body, chunk.data(), chunk.size());
  }
  // The chunk at document offset |offset| through the feeder's ReadChunk,
  // else (false from it) copied from |chunk|. True when read.
  bool AssignRead(const ChunkFeeder& feeder, size_t offset, std::string_view chunk) {
    char* body = Prepare(chunk.size());
    if (feeder.ReadChunk(offset, chunk.size(), body)) return true;
    std::memcpy(body, chunk.data(), chunk.size());
    return false;
  }
  const char* data() const { return data_.get(); }
  char* mutable_data() { return data_.get(); }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }

 private:
  // Sizes the buffer for a body of |length| bytes, writes the brackets and
  // the padding; returns where the body goes.
  char* Prepare(size_t length) {
    const size_t size = length + 2;
    if (size + simdjson::SIMDJSON_PADDING > capacity_) {
      capacity_ = size + size / 4 + simdjson::SIMDJSON_PADDING;
      data_ = std::make_unique<char[]>(capacity_);
    }
    data_[0] = '[';
    data_[size - 1] = ']';
    std::memset(data_.get() + size, 0, simdjson::SIMDJSON_PADDING);
    size_ = size;
    return data_.get() + 1;
  }

  std::unique_ptr<char[]> data_;
  size_t capacity_ = 0;
  size_t size_ = 0;
};

// Parses one bracketed chunk ("[" events "]" with |capacity| - size
// readable bytes after it), calling on_event for each event in order. A
// chunk whose brackets do not pair up fails even where simdjson read it
// (On-Demand follows nesting by depth, not by kind: json_layout.h,
// BracketsPair); the recovery's own parse of the good events then fails
// too, and the whole-document scan judges the file.
template <typename OnEvent>
bool ParseChunk(od::parser& parser, std::string_view chunk, size_t capacity, OnEvent&& on_event) {
  od::document doc;
  if (parser.iterate(chunk.data(), chunk.size(), capacity).get(doc)) return false;
  od::array events;
  if (doc.get_array().get(events)) return false;
  RawEvent ev;
  for (auto element : events) {
    od::object obj;
    if (element.get_object().get(obj)) return false;
    if (CaptureEvent(obj, &ev)) return false;
    on_event(ev);
  }
  return AtDocumentEnd(doc) && BracketsPair(chunk);
}

// The buffer PlainEventReader unescapes a chunk's strings into: as big as
// the chunk (never zeroed: only the bytes written are touched), reused.
class UnescapeRoom {
 public:
  char* For(size_t bytes) {
    if (bytes > size_) {
      size_ = bytes + bytes / 4;
      data_ = std::make_unique_for_overwrite<char[]>(size_);
    }
    return data_.get();
  }

 private:
  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
};

// Reads the events of |chunk| in order, calling on_event for each: plain
// events with PlainEventReader, from the first event it leaves on with
// simdjson (ParseChunk). kRefused: the reader met text around the events it
// does not take (nothing it returned may be kept: the caller reads the chunk
// again with ParseChunk alone). |plain|: the events the reader read.
enum class ChunkRead { kRead, kFailed, kRefused };
template <typename OnEvent>
ChunkRead ReadPlainFirst(od::parser& parser, PaddedChunk* chunk, UnescapeRoom* unescaped,
                         OnEvent&& on_event, size_t* plain) {
  PlainEventReader reader(std::string_view(chunk->data(), chunk->size()),
                          unescaped->For(chunk->size()));
  RawEvent ev;
  for (;;) {
    const PlainEventReader::Step step = reader.Next(&ev);
    if (step == PlainEventReader::Step::kEvent) {
      on_event(ev);
      ++*plain;
      continue;
    }
    if (step == PlainEventReader::Step::kEnd) return ChunkRead::kRead;
    if (step == PlainEventReader::Step::kRefuse) return ChunkRead::kRefused;
    break;
  }
  // The left event and the rest as a document of their own: the byte before
  // the event (the chunk's '[', a comma or whitespace) stands in for its '['
  // while simdjson reads it. The events before it keep their views: none
  // reaches that byte.
  const size_t from = reader.event_begin() - 1;
  char* data = chunk->mutable_data();
  const char saved = data[from];
  data[from] = '[';
  const bool ok = ParseChunk(parser, std::string_view(data + from, chunk->size() - from),
                             chunk->capacity() - from, on_event);
  data[from] = saved;
  return ok ? ChunkRead::kRead : ChunkRead::kFailed;
}

// One chunk in flight: its text, the parser owning its unescaped strings and
// the sink's batch of its converted events (which may keep views into both
// until it is committed).
struct Slot {
  explicit Slot(const EventSink& sink) : batch(sink.NewBatch()) {}
  // Takes the feeder's chunk (under the feeder's lock): a chunk that stays
  // is only noted, and copied by Fill on the worker; another is copied now.
  void Take(ChunkFeeder* feeder, std::string_view text) {
    info = feeder->info();
    pending.reset();
    if (info.skip != RowIssue::kNone) return;
    if (feeder->chunks_stay()) {
      pending = text;  // may be empty: an empty chunk is copied as "[]" too
      return;
    }
    copy.Assign(text);
    feeder->Release(text);
  }
  // The noted chunk into the slot's buffer (on the worker, outside the
  // feeder's lock). True when it was read with the feeder's ReadChunk.
  bool Fill(const ChunkFeeder& feeder) {
    if (!pending) return false;
    const bool from_file = copy.AssignRead(feeder, info.offset, *pending);
    feeder.Release(*pending);
    pending.reset();
    return from_file;
  }
  std::string_view doc() const { return std::string_view(copy.data(), copy.size()); }
  size_t capacity() const { return copy.capacity(); }
  ChunkFeeder::ChunkInfo info;
  PaddedChunk copy;
  PaddedChunk recovered;                    // the events of a refused chunk that do parse
  std::optional<std::string_view> pending;  // a chunk that stays, not copied yet
  od::parser parser;
  UnescapeRoom unescaped;  // the plain reader's unescaped strings
  std::unique_ptr<EventBatch> batch;
  size_t events = 0;
  size_t unreadable = 0;  // of |events|, skipped as unreadable
  size_t plain = 0;       // of |events|, read by PlainEventReader
  bool ok = false;
  bool read = false;  // copied with the feeder's ReadChunk

  // Drops what a parse converted so far: the chunk is read again.
  void RestartBatch(const EventSink& sink) {
    batch = sink.NewBatch();
    events = 0;
    plain = 0;
  }
};

// The slot's chunk did not parse: finds its events with the bracket matcher,
// parses each alone to tell the bad ones (skipped, with their offset) from
// the good ones, and parses the good ones again together, so that their
// unescaped strings stay in the parser's buffer until the commit. False
// when the chunk's structure cannot be followed.
bool RecoverChunk(const EventSink& sink, Slot* slot) {
  // Whatever the failed parse converted is dropped with its batch.
  slot->RestartBatch(sink);
  const std::string_view text = slot->doc();  // "[" events "]"
  const std::string_view body = text.substr(1, text.size() - 2);
  struct Bad {
    size_t before_good;  // number of good events before it
    size_t offset;
    RawEvent event;
  };
  std::vector<Bad> bad;
  std::string good;
  size_t good_count = 0;
  RawEvent ev;
  size_t i = SkipSpace(body, 0);
  while (i < body.size()) {
    const size_t end = ValueEnd(body, i);
    if (end == std::string_view::npos || end == i) return false;
    RowIssue reason = RowIssue::kNone;
    std::string_view detail;
    if (body[i] != '{') {
      reason = RowIssue::kEventNotObject;
    } else {
      od::document doc;
      od::object obj;
      // The bytes after the slice (the rest of the chunk, then its padding)
      // are readable, as simdjson requires.
      error_code e =
          slot->parser.iterate(body.data() + i, end - i, end - i + simdjson::SIMDJSON_PADDING)
              .get(doc);
      if (!e) e = doc.get_object().get(obj);
      if (!e) e = CaptureEvent(obj, &ev);
      if (e) {
        if (FirstBadUtf8(body.substr(i, end - i)) != std::string_view::npos) {
          reason = RowIssue::kEventInvalidUtf8;
        } else {
          reason = RowIssue::kEventInvalid;
          detail = simdjson::error_message(e);
        }
      }
    }
    if (reason != RowIssue::kNone) {
      bad.push_back(Bad{good_count, slot->info.offset + i, SkippedEvent(reason, detail)});
    } else {
      if (good_count++ > 0) good += ',';
      good.append(body.substr(i, end - i));
    }
    i = SkipSpace(body, end);
    if (i >= body.size()) break;
    if (body[i] != ',') return false;
    i = SkipSpace(body, i + 1);
    if (i >= body.size()) return false;  // a trailing comma
  }
  slot->recovered.Assign(good);
  size_t next_bad = 0, seen_good = 0;
  auto flush_bad = [&](size_t up_to_good) {
    for (; next_bad < bad.size() && bad[next_bad].before_good <= up_to_good; ++next_bad) {
      sink.Convert(bad[next_bad].event, bad[next_bad].offset, slot->batch.get());
      ++slot->events;
    }
  };
  const bool ok =
      ParseChunk(slot->parser, std::string_view(slot->recovered.data(), slot->recovered.size()),
                 slot->recovered.capacity(), [&](const RawEvent& event) {
                   flush_bad(seen_good++);
                   sink.Convert(event, 0, slot->batch.get());
                   ++slot->events;
                 });
  if (!ok || seen_good != good_count) return false;
  flush_bad(good_count);
  slot->unreadable = bad.size();
  return true;
}

// Parses the slot's chunk and converts its events into the slot's batch
// (|plain_reader|: ScanOptions::plain_event_reader).
void ConvertChunk(const EventSink& sink, const ChunkFeeder& feeder, bool plain_reader, Slot* slot) {
  slot->read = slot->Fill(feeder);
  slot->events = 0;
  slot->unreadable = 0;
  slot->plain = 0;
  if (slot->info.skip != RowIssue::kNone) {
    sink.Convert(SkippedEvent(slot->info.skip, slot->info.skip_detail), slot->info.offset,
                 slot->batch.get());
    slot->events = 1;
    slot->unreadable = 1;
    slot->ok = true;
    return;
  }
  auto convert = [&](const RawEvent& ev) {
    sink.Convert(ev, 0, slot->batch.get());
    ++slot->events;
  };
  ChunkRead read = ChunkRead::kRefused;
  if (plain_reader) {
    read = ReadPlainFirst(slot->parser, &slot->copy, &slot->unescaped, convert, &slot->plain);
  }
  if (read == ChunkRead::kRefused) {
    if (plain_reader) slot->RestartBatch(sink);
    read = ParseChunk(slot->parser, slot->doc(), slot->capacity(), convert) ? ChunkRead::kRead
                                                                            : ChunkRead::kFailed;
  }
  slot->ok = read == ChunkRead::kRead;
  if (!slot->ok) slot->ok = RecoverChunk(sink, slot);
}

// Hands the slot's batch to the sink, then how much of the input is in;
// counts its events into |result|.
void CommitSlot(EventSink* sink, Slot* slot, ChunkScanResult* result) {
  sink->Commit(slot->batch.get());
  if (slot->info.share_read > 0) sink->OnShareRead(slot->info.share_read);
  result->events += slot->events;
  result->unreadable_events += slot->unreadable;
  result->plain_events += slot->plain;
}

ChunkScanResult ScanSequential(ChunkFeeder* feeder, EventSink* sink, bool plain_reader) {
  ChunkScanResult result;
  Slot slot(*sink);
  std::string_view text;
  while (feeder->Next(&text)) {
    slot.Take(feeder, text);
    ++result.chunks;
    ConvertChunk(*sink, *feeder, plain_reader, &slot);
    if (slot.read) ++result.chunks_read;
    if (!slot.ok) return result;
    CommitSlot(sink, &slot, &result);
  }
  result.ok = !feeder->failed();
  return result;
}

// Chunks converted on |threads| workers into a window of slots, committed
// to the sink in order on the calling thread (core/ordered_work.h). The
// feeder is read under the window's lock, in order: a streaming feeder
// reuses its buffer.
class ParallelScan {
 public:
  ParallelScan(ChunkFeeder* feeder, unsigned threads, EventSink* sink, bool plain_reader)
      : feeder_(feeder),
        sink_(sink),
        plain_reader_(plain_reader),
        // Two spare slots let the workers run ahead while the sink drains one.
        work_(
            OrderedWork<Slot>::NewSlots(threads + 2,
                                        [sink] { return std::make_unique<Slot>(*sink); }),
            threads,
            [this](int64_t, Slot* slot) {
              std::string_view text;
              if (!feeder_->Next(&text)) return ClaimAnswer::kNoMore;
              // A chunk that stays is copied by ConvertChunk, in parallel.
              slot->Take(feeder_, text);
              return ClaimAnswer::kTaken;
            },
            [this](unsigned, int64_t, Slot* slot) {
              ConvertChunk(*sink_, *feeder_, plain_reader_, slot);
            }) {}

  ChunkScanResult Run() {
    while (Slot* slot = work_.Take(/*help=*/false)) {
      ++result_.chunks;
      if (slot->read) ++result_.chunks_read;
      if (!slot->ok) return result_;  // not ok; workers may still read the feeder
      CommitSlot(sink_, slot, &result_);
      work_.Release();
    }
    // Take ran out: the feeder said it had no more, under the window's
    // lock, and is read no more.
    result_.ok = !feeder_->failed();
    return result_;
  }

 private:
  ChunkFeeder* feeder_;
  EventSink* sink_;
  bool plain_reader_;
  ChunkScanResult result_;
  OrderedWork<Slot> work_;  // last: its workers start once the rest exists
};

}  // namespace

ChunkScanResult ScanChunks(ChunkFeeder* feeder, unsigned threads, EventSink* sink,
                           bool plain_event_reader) {
  if (threads <= 1) return ScanSequential(feeder, sink, plain_event_reader);
  return ParallelScan(feeder, threads, sink, plain_event_reader).Run();
}

namespace {

// Walks the events of body[begin, ...) (commas between them) for the first
// one longer than |limit|: its extent, and the end of the event before it
// (|begin| when it is the first). False when there is none or the walk
// loses the structure (the chunk parse then reports it).
bool FindLongEvent(std::string_view body, size_t begin, size_t limit, size_t* before_end,
                   size_t* long_begin, size_t* long_end) {
  size_t i = begin;
  *before_end = begin;
  while (i < body.size()) {
    const size_t end = ValueEnd(body, i);
    if (end == std::string_view::npos) {
      return false;
    }
    if (end - i > limit) {
      *long_begin = i;
      *long_end = end;
      return true;
    }
    const size_t sep = SkipSpace(body, end);
    if (sep >= body.size() || body[sep] != ',') return false;
    *before_end = end;
    i = SkipSpace(body, sep + 1);
  }
  return false;
}

}  // namespace

bool TextFeeder::Next(std::string_view* chunk) {
  const size_t begin = SkipSpace(body_, pos_);
  if (begin >= body_.size()) return false;
  size_t chunk_end = 0, next_begin = 0;
  // A remainder under 1.5 chunks goes whole: no tiny last chunk.
  if (body_.size() - begin > chunk_bytes_ + chunk_bytes_ / 2 &&
      NextEventBoundary(body_, begin + chunk_bytes_, &chunk_end, &next_begin)) {
    pos_ = next_begin;
  } else {
    chunk_end = body_.size();
    pos_ = body_.size();
  }
  // A chunk this long may hold an event over the limit: the events before
  // it go as a chunk, it goes as a skip (its text neither copied nor parsed).
  size_t long_begin = 0, long_end = 0, before_end = 0;
  if (chunk_end - begin > max_event_bytes_ &&
      FindLongEvent(body_.substr(0, chunk_end), begin, max_event_bytes_, &before_end, &long_begin,
                    &long_end)) {
    if (long_begin == begin) {
      // What the whole-document scan would not read on from (a long value
      // that is not an event object, no comma after it, a trailing comma)
      // is left to it: the feeder fails and the caller falls back.
      size_t after = SkipSpace(body_, long_end);
      if (body_[long_begin] != '{') return Fail();
      if (after < body_.size()) {
        if (body_[after] != ',') return Fail();
        ++after;
        if (SkipSpace(body_, after) >= body_.size()) return Fail();
      }
      pos_ = after;
      *chunk = {};
      info_ = ChunkInfo{base_offset_ + begin, RowIssue::kEventTooLong,
                        "longer than the event size limit (TRAINSCOPE_MAX_EVENT_BYTES)",
                        ShareThrough(long_end)};
      Release(body_.substr(begin, long_end - begin));
      return true;
    }
    chunk_end = before_end;
    pos_ = long_begin;
  }
  *chunk = body_.substr(begin, chunk_end - begin);
  info_ = ChunkInfo{base_offset_ + begin};
  info_.share_read = ShareThrough(chunk_end);
  return true;
}

void TextFeeder::Release(std::string_view chunk) const {
  // Only whole pages inside the chunk: neighbours may still be read. The
  // mapping is ours and never written, so dropped pages read back from the
  // file.
  if (release_pages_) DropPagesWithin(chunk.data(), chunk.size());
}

}  // namespace trainscope::formats::trace
