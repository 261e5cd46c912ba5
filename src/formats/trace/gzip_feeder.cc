#include "formats/trace/gzip_feeder.h"

#include <algorithm>

namespace trainscope::formats::trace {
namespace {

// Inflation step while reading past a long event or whitespace: big enough
// to be cheap, small enough that nothing accumulates.
constexpr size_t kDropStep = size_t{1} << 20;
constexpr const char* kLongEventDetail =
    "longer than the event size limit (TRAINSCOPE_MAX_EVENT_BYTES)";

}  // namespace

GzipFeeder::GzipFeeder(std::string_view gz, size_t chunk_bytes, size_t max_event_bytes)
    : chunk_bytes_(std::max<size_t>(chunk_bytes, 1)),
      max_event_bytes_(std::max<size_t>(max_event_bytes, 1)) {
  zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  zs_.avail_in = 0;
  zs_ready_ = inflateInit2(&zs_, 15 + 32) == Z_OK;
  // zlib counts input in 32-bit units: feed the mapped file a window at a time.
  remaining_in_ = gz.size();
  compressed_bytes_ = gz.size();
}

GzipFeeder::~GzipFeeder() {
  if (zs_ready_) inflateEnd(&zs_);
}

void GzipFeeder::Inflate(size_t bytes) {
  if (eof_) return;
  if (!zs_ready_) {
    eof_ = true;
    return;
  }
  // Drop the consumed front first so the buffer stays ~ one chunk.
  if (head_ > 0) {
    buf_.erase(0, head_);
    dropped_ += head_;
    head_ = 0;
  }
  size_t used = buf_.size();
  buf_.resize(used + bytes);
  while (used < buf_.size()) {
    if (zs_.avail_in == 0 && remaining_in_ > 0) {
      uInt window = static_cast<uInt>(std::min<size_t>(remaining_in_, 1u << 30));
      zs_.avail_in = window;
      remaining_in_ -= window;
    }
    zs_.next_out = reinterpret_cast<Bytef*>(buf_.data() + used);
    size_t room = std::min<size_t>(buf_.size() - used, 1u << 30);
    zs_.avail_out = static_cast<uInt>(room);
    int rc = inflate(&zs_, Z_NO_FLUSH);
    used += room - zs_.avail_out;
    if (rc == Z_STREAM_END) {
      // Another gzip member may follow (`cat a.gz b.gz`, pigz): its text
      // continues the document. Bytes that are no gzip member end the
      // stream at the next call (Z_DATA_ERROR), as corrupt data does.
      if ((zs_.avail_in > 0 || remaining_in_ > 0) && inflateReset(&zs_) == Z_OK) continue;
      eof_ = true;
      break;
    }
    if ((rc == Z_BUF_ERROR && zs_.avail_in == 0 && remaining_in_ == 0) ||
        (rc != Z_OK && rc != Z_BUF_ERROR)) {
      eof_ = true;  // truncated or corrupt: keep what inflated
      break;
    }
  }
  buf_.resize(used);
}

bool GzipFeeder::Start() {
  while (true) {
    // Whitespace before the document is dropped as it comes.
    if (SkipSpace(buf_, 0) == buf_.size()) {
      dropped_ += buf_.size();
      buf_.clear();
    }
    LocateResult r = LocateEventsStart(buf_, eof_, &start_);
    if (r == LocateResult::kFound) break;
    if (r == LocateResult::kUnsupported || eof_) return false;
    // Metadata before the events is held whole (it becomes the metadata
    // document): past the event limit the whole-document path decides.
    if (buf_.size() > max_event_bytes_) return false;
    Inflate(std::max<size_t>(buf_.size(), kDropStep));
  }
  prefix_.assign(buf_, 0, start_.begin);
  head_ = start_.begin;
  return true;
}

bool GzipFeeder::SkipSeparator() {
  bool comma = false;
  while (true) {
    head_ = SkipSpace(buf_, head_);
    if (head_ == buf_.size()) {
      if (eof_) return true;  // the tail decides (FindEventsEnd / truncated)
      Inflate(std::max(chunk_bytes_, kDropStep));
      continue;
    }
    if (buf_[head_] == ',' && !comma) {
      comma = true;
      ++head_;
      continue;
    }
    // After a comma an event; without one the array's end. Anything else
    // (a missing comma, a trailing comma) is left to the whole-document scan.
    return comma ? buf_[head_] != ']' : buf_[head_] == ']';
  }
}

bool GzipFeeder::TakeLongEvent(std::string_view* chunk) {
  const std::string_view pending(buf_.data() + head_, buf_.size() - head_);
  const size_t b = SkipSpace(pending, 0);
  if (b == pending.size()) {
    head_ = buf_.size();  // only whitespace: dropped
    return false;
  }
  if (pending[b] != '{') {
    failed_ = done_ = true;
    return false;
  }
  const size_t begin = head_ + b;
  const size_t event_offset = Offset(begin);
  // Events of allowed size without a cut after them (a long gap, events
  // whose first key the cut finder does not know): the complete ones found
  // by the bracket matcher go as one chunk, so the buffer empties.
  size_t events_end = std::string_view::npos;
  for (size_t i = b;;) {
    const size_t e = ValueEnd(pending, i);
    if (e == std::string_view::npos || e - i > max_event_bytes_) break;
    events_end = e;
    const size_t sep = SkipSpace(pending, e);
    if (sep >= pending.size() || pending[sep] != ',') break;
    const size_t next = SkipSpace(pending, sep + 1);
    if (next >= pending.size() || pending[next] != '{') break;
    i = next;
  }
  if (events_end != std::string_view::npos) {
    *chunk = pending.substr(b, events_end - b);
    info_.offset = event_offset;
    head_ += events_end;
    after_event_ = true;
    return true;
  }
  // The first event is longer than the limit.
  ValueEndScanner scanner;
  const size_t end = scanner.Feed(pending.substr(b));
  if (end != std::string_view::npos) {
    head_ = begin + end;
  } else {
    // Read past the rest of the event, dropping its bytes as they come.
    head_ = buf_.size();
    while (true) {
      if (head_ == buf_.size()) {
        if (eof_) {
          done_ = truncated_ = ended_in_long_event_ = true;
          long_event_offset_ = event_offset;
          return false;
        }
        Inflate(std::max(chunk_bytes_, kDropStep));
        continue;
      }
      const size_t e = scanner.Feed(std::string_view(buf_.data() + head_, buf_.size() - head_));
      if (e != std::string_view::npos) {
        head_ += e;
        break;
      }
      head_ = buf_.size();
    }
  }
  *chunk = {};
  info_.offset = event_offset;
  info_.skip = RowIssue::kEventTooLong;
  info_.skip_detail = kLongEventDetail;
  after_event_ = true;
  return true;
}

void GzipFeeder::EndTruncated(std::string_view pending) {
  truncated_ = true;
  size_t chunk_end = 0, next_begin = 0, tail_begin = 0;
  if (LastEventBoundary(pending, 0, &chunk_end, &next_begin)) {
    tail_.emplace(pending.substr(0, chunk_end), chunk_bytes_, /*release_pages=*/false);
    tail_->set_base_offset(Offset(head_));
    tail_begin = next_begin;
  }
  tail_text_ = simdjson::padded_string(pending.substr(tail_begin));
  tail_offset_ = Offset(head_ + tail_begin);
}

bool GzipFeeder::Next(std::string_view* chunk) {
  // The inflate buffer is reused: chunks are copied at once (chunks_stay()
  // is false).
  info_ = {};
  while (!done_) {
    if (after_event_) {
      after_event_ = false;
      if (!SkipSeparator()) {
        failed_ = done_ = true;
        return false;
      }
    }
    size_t avail = buf_.size() - head_;
    if (!eof_ && avail < chunk_bytes_) {
      Inflate(chunk_bytes_ - avail);
      continue;
    }
    std::string_view pending(buf_.data() + head_, avail);
    if (!eof_) {
      // Cut behind the newest complete event in the buffer; one chunk
      // cannot be cut (a single event over two chunks): read on, up to the
      // event size limit.
      size_t chunk_end = 0, next_begin = 0;
      if (LastEventBoundary(pending, 0, &chunk_end, &next_begin)) {
        *chunk = pending.substr(0, chunk_end);
        info_.offset = Offset(head_);
        head_ += next_begin;
        return true;
      }
      if (avail < max_event_bytes_) {
        Inflate(std::min(std::max(avail, chunk_bytes_), max_event_bytes_ - avail));
        continue;
      }
      if (TakeLongEvent(chunk)) return true;
      if (failed_) return false;
      continue;
    }
    // The stream ended: the rest holds the last events, ']' and the
    // top-level keys after the array; it no longer moves, so it is cut like
    // an in-memory body.
    done_ = true;
    size_t close = FindEventsEnd(prefix_, pending, &meta_);
    if (close == std::string_view::npos) {
      EndTruncated(pending);
      break;
    }
    tail_.emplace(pending.substr(0, close), chunk_bytes_, /*release_pages=*/false);
    tail_->set_base_offset(Offset(head_));
  }
  if (tail_ && tail_->Next(chunk)) {
    info_ = tail_->info();
    return true;
  }
  return false;
}

ChunkFeeder::ChunkInfo GzipFeeder::info() const {
  ChunkInfo info = info_;
  if (compressed_bytes_ > 0) {
    // Given to zlib and not yet inflated counts as unread.
    const size_t unread = remaining_in_ + zs_.avail_in;
    info.share_read = 1.0 - static_cast<double>(unread) / static_cast<double>(compressed_bytes_);
  }
  return info;
}

}  // namespace trainscope::formats::trace
