#include "formats/trace/gzip_feeder.h"

#include <algorithm>

namespace trainscope::formats::trace {

GzipFeeder::GzipFeeder(std::string_view gz, size_t chunk_bytes)
    : chunk_bytes_(std::max<size_t>(chunk_bytes, 1)) {
  zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  zs_.avail_in = 0;
  zs_ready_ = inflateInit2(&zs_, 15 + 32) == Z_OK;
  // zlib counts input in 32-bit units: feed the mapped file a window at a time.
  remaining_in_ = gz.size();
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
    if (rc == Z_STREAM_END || (rc == Z_BUF_ERROR && zs_.avail_in == 0 && remaining_in_ == 0) ||
        (rc != Z_OK && rc != Z_BUF_ERROR)) {
      eof_ = true;  // end, truncated or corrupt: keep what inflated
      break;
    }
  }
  buf_.resize(used);
}

bool GzipFeeder::Start() {
  while (true) {
    LocateResult r = LocateEventsStart(buf_, eof_, &start_);
    if (r == LocateResult::kFound) break;
    if (r == LocateResult::kUnsupported || eof_) return false;
    Inflate(std::max<size_t>(buf_.size(), 1u << 20));
  }
  prefix_.assign(buf_, 0, start_.begin);
  head_ = start_.begin;
  return true;
}

bool GzipFeeder::Next(std::string_view* chunk, bool* bracketed) {
  *bracketed = false;  // the inflate buffer is reused: chunks are copied
  while (!done_) {
    size_t avail = buf_.size() - head_;
    if (!eof_ && avail < chunk_bytes_) {
      Inflate(chunk_bytes_ - avail);
      continue;
    }
    std::string_view pending(buf_.data() + head_, avail);
    size_t chunk_end = 0, next_begin = 0;
    if (!eof_) {
      // Cut behind the newest complete event in the buffer; one chunk
      // cannot be cut (a single event over two chunks): read on.
      if (LastEventBoundary(pending, 0, &chunk_end, &next_begin)) {
        *chunk = pending.substr(0, chunk_end);
        head_ += next_begin;
        return true;
      }
      Inflate(std::max<size_t>(avail, chunk_bytes_));
      continue;
    }
    // The stream ended: the rest holds the last events, ']' and the
    // top-level keys after the array; it no longer moves, so it is cut like
    // an in-memory body.
    done_ = true;
    size_t close = FindEventsEnd(prefix_, pending, &meta_);
    if (close == std::string_view::npos) {
      failed_ = true;
      return false;
    }
    tail_.emplace(pending.substr(0, close), chunk_bytes_, /*release_pages=*/false);
  }
  return tail_ && tail_->Next(chunk, bracketed);
}

}  // namespace trainscope::formats::trace
