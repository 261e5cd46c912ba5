#include "formats/trace/chunked_scan.h"

#include <simdjson.h>
#include <sys/mman.h>
#include <unistd.h>

#include <condition_variable>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "formats/trace/event_capture.h"
#include "formats/trace/json_layout.h"

namespace trainscope::formats::trace {
namespace {

namespace od = simdjson::ondemand;
using simdjson::error_code;

// "[" chunk "]" plus simdjson's padding, reused chunk after chunk.
class PaddedChunk {
 public:
  void Assign(std::string_view chunk) {
    size_t size = chunk.size() + 2;
    if (size + simdjson::SIMDJSON_PADDING > capacity_) {
      capacity_ = size + size / 4 + simdjson::SIMDJSON_PADDING;
      data_ = std::make_unique<char[]>(capacity_);
    }
    data_[0] = '[';
    std::memcpy(data_.get() + 1, chunk.data(), chunk.size());
    data_[size - 1] = ']';
    std::memset(data_.get() + size, 0, simdjson::SIMDJSON_PADDING);
    size_ = size;
  }
  const char* data() const { return data_.get(); }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }

 private:
  std::unique_ptr<char[]> data_;
  size_t capacity_ = 0;
  size_t size_ = 0;
};

// Parses one wrapped chunk, calling on_event for each event in order.
template <typename OnEvent>
bool ParseChunk(od::parser& parser, const PaddedChunk& chunk, OnEvent&& on_event) {
  od::document doc;
  if (parser.iterate(chunk.data(), chunk.size(), chunk.capacity()).get(doc)) return false;
  od::array events;
  if (doc.get_array().get(events)) return false;
  RawEvent ev;
  for (auto element : events) {
    od::object obj;
    if (std::move(element).get_object().get(obj)) return false;
    if (CaptureEvent(obj, &ev)) return false;
    on_event(ev);
  }
  return AtDocumentEnd(doc);
}

// One chunk in flight: its text, the parser owning its unescaped strings and
// the sink's batch of its converted events (which may keep views into both
// until it is committed).
struct Slot {
  explicit Slot(const EventSink& sink) : batch(sink.NewBatch()) {}
  PaddedChunk chunk;
  od::parser parser;
  std::unique_ptr<EventBatch> batch;
  size_t events = 0;
  size_t index = 0;
  bool ok = false;
};

// Parses the slot's chunk and converts its events into the slot's batch.
void ConvertChunk(const EventSink& sink, Slot* slot) {
  slot->events = 0;
  slot->ok = ParseChunk(slot->parser, slot->chunk, [&](const RawEvent& ev) {
    sink.Convert(ev, 0, slot->batch.get());
    ++slot->events;
  });
}

ChunkScanResult ScanSequential(ChunkFeeder* feeder, EventSink* sink) {
  ChunkScanResult result;
  Slot slot(*sink);
  std::string_view text;
  while (feeder->Next(&text)) {
    slot.chunk.Assign(text);
    feeder->Release(text);
    ++result.chunks;
    ConvertChunk(*sink, &slot);
    if (!slot.ok) return result;
    sink->Commit(slot.batch.get());
    result.events += slot.events;
  }
  result.ok = !feeder->failed();
  return result;
}

class ParallelScan {
 public:
  ParallelScan(ChunkFeeder* feeder, unsigned threads, EventSink* sink)
      : feeder_(feeder), threads_(threads), sink_(sink) {
    // Two spare slots let the workers run ahead while the sink drains one.
    slots_.resize(threads + 2);
    for (auto& slot : slots_) {
      slot = std::make_unique<Slot>(*sink);
      free_.push_back(slot.get());
    }
  }

  ChunkScanResult Run() {
    std::vector<std::thread> workers;
    workers.reserve(threads_);
    for (unsigned t = 0; t < threads_; ++t) workers.emplace_back([this] { Work(); });
    bool ok = Consume();
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& worker : workers) worker.join();
    result_.ok = ok && !feeder_->failed();
    return result_;
  }

 private:
  void Work() {
    while (true) {
      Slot* slot = nullptr;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return !free_.empty() || stop_ || fed_all_; });
        if (stop_ || fed_all_) return;
        slot = free_.back();
        free_.pop_back();
        std::string_view text;
        if (!feeder_->Next(&text)) {
          fed_all_ = true;
          free_.push_back(slot);
          cv_.notify_all();
          return;
        }
        // Copied under the lock: a streaming feeder reuses its buffer.
        slot->index = fed_++;
        slot->chunk.Assign(text);
        feeder_->Release(text);
      }
      ConvertChunk(*sink_, slot);
      {
        std::lock_guard<std::mutex> lock(mu_);
        ready_[slot->index] = slot;
      }
      cv_.notify_all();
    }
  }

  bool Consume() {
    for (size_t i = 0;; ++i) {
      Slot* slot = nullptr;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this, i] { return ready_.count(i) != 0 || (fed_all_ && i >= fed_); });
        auto it = ready_.find(i);
        if (it == ready_.end()) return true;
        slot = it->second;
        ready_.erase(it);
      }
      ++result_.chunks;
      if (!slot->ok) return false;
      sink_->Commit(slot->batch.get());
      result_.events += slot->events;
      {
        std::lock_guard<std::mutex> lock(mu_);
        free_.push_back(slot);
      }
      cv_.notify_all();
    }
  }

  ChunkFeeder* feeder_;
  unsigned threads_;
  EventSink* sink_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Slot*> free_;
  std::map<size_t, Slot*> ready_;
  size_t fed_ = 0;
  bool fed_all_ = false;
  bool stop_ = false;
  ChunkScanResult result_;
};

}  // namespace

ChunkScanResult ScanChunks(ChunkFeeder* feeder, unsigned threads, EventSink* sink) {
  if (threads <= 1) return ScanSequential(feeder, sink);
  return ParallelScan(feeder, threads, sink).Run();
}

bool TextFeeder::Next(std::string_view* chunk) {
  size_t begin = pos_;
  while (begin < body_.size() && (body_[begin] == ' ' || body_[begin] == '\n' ||
                                  body_[begin] == '\r' || body_[begin] == '\t')) {
    ++begin;
  }
  if (begin >= body_.size()) return false;
  size_t chunk_end = 0, next_begin = 0;
  // A remainder under 1.5 chunks goes whole: no tiny last chunk.
  if (body_.size() - begin > chunk_bytes_ + chunk_bytes_ / 2 &&
      NextEventBoundary(body_, begin + chunk_bytes_, &chunk_end, &next_begin)) {
    *chunk = body_.substr(begin, chunk_end - begin);
    pos_ = next_begin;
  } else {
    *chunk = body_.substr(begin);
    pos_ = body_.size();
  }
  return true;
}

void TextFeeder::Release(std::string_view chunk) {
  if (!release_pages_) return;
  // Only whole pages inside the chunk: neighbours may still be read.
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t begin = (reinterpret_cast<uintptr_t>(chunk.data()) + page - 1) & ~(page - 1);
  uintptr_t end = (reinterpret_cast<uintptr_t>(chunk.data()) + chunk.size()) & ~(page - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

}  // namespace trainscope::formats::trace
