// Lines of a log handed to a stateful reader in order, each with what a
// pure function of its text computed for it ahead of time on worker threads.
//
// A training log's reader keeps state across lines (an open JSON document,
// DeepSpeed's pending overflows, the last timestamp), so lines cannot be
// read in independent chunks; but most of its time is parsing a line's
// text alone (its timestamp, its fields and numbers), which can run ahead.
// The lines are copied into batches (the line reader's text is valid only
// during its call), |parse| fills each line's result on a worker, and
// |use| gets every line with its result in file order on the caller's
// thread, which parses the batches no worker has taken while it waits. At
// most kWindow batches are in flight: memory stays ~7 MB whatever the
// log's size (a window of 8 was no faster on two cores, and 8 MB more).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "formats/log/line_reader.h"

namespace trainscope::formats {

template <typename Parsed>
class PreparsedLines {
 public:
  using ParseFn = std::function<void(const LogLine&, Parsed*)>;
  using UseFn = std::function<void(const LogLine&, const Parsed&)>;

  static constexpr size_t kBatchLines = 4096;
  static constexpr size_t kBatchBytes = size_t{1} << 20;
  static constexpr size_t kWindow = 4;

  PreparsedLines(unsigned workers, ParseFn parse, UseFn use)
      : parse_(std::move(parse)), use_(std::move(use)), batches_(kWindow) {
    for (Batch& batch : batches_) {
      // Views into the text must survive its growth: room for a full batch
      // and one more line of the longest kind.
      batch.text.reserve(kBatchBytes + kMaxLineBytes + 1);
      batch.lines.reserve(kBatchLines);
    }
    for (unsigned i = 0; i < workers; ++i) threads_.emplace_back([this] { Work(); });
  }

  PreparsedLines(const PreparsedLines&) = delete;
  PreparsedLines& operator=(const PreparsedLines&) = delete;

  ~PreparsedLines() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    for (std::thread& thread : threads_) thread.join();
  }

  // Copies |line| into the batch being filled; a full batch goes to the
  // workers, and when the window is full the oldest is used first.
  void Add(const LogLine& line) {
    Batch& batch = batches_[filled_ % kWindow];
    LogLine copy = line;
    const size_t at = batch.text.size();
    batch.text.append(line.text);
    copy.text = std::string_view(batch.text.data() + at, line.text.size());
    batch.lines.push_back(copy);
    if (batch.lines.size() >= kBatchLines || batch.text.size() >= kBatchBytes) Submit();
  }

  // Uses every line added; call once, after the last Add.
  void Finish() {
    if (!batches_[filled_ % kWindow].lines.empty()) Submit();
    while (used_ < filled_) UseOldest();
  }

 private:
  struct Batch {
    std::string text;
    std::vector<LogLine> lines;
    std::vector<Parsed> parsed;
    bool ready = false;
  };

  void Submit() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      ++filled_;
    }
    changed_.notify_all();
    if (filled_ - used_ == kWindow) UseOldest();
  }

  // Waits for the oldest batch, parsing batches no worker has taken yet
  // meanwhile (the reader's thread is otherwise idle while the workers
  // parse), then hands its lines to |use_|.
  void UseOldest() {
    Batch& batch = batches_[used_ % kWindow];
    for (;;) {
      Batch* untaken = nullptr;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return batch.ready || error_ != nullptr || taken_ < filled_; });
        if (error_ != nullptr) std::rethrow_exception(error_);
        if (batch.ready) break;
        untaken = &batches_[taken_++ % kWindow];
      }
      Parse(untaken);
    }
    for (size_t i = 0; i < batch.lines.size(); ++i) use_(batch.lines[i], batch.parsed[i]);
    batch.text.clear();
    batch.lines.clear();
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      batch.ready = false;
      ++used_;
    }
  }

  void Parse(Batch* batch) {
    batch->parsed.resize(batch->lines.size());
    for (size_t i = 0; i < batch->lines.size(); ++i) {
      batch->parsed[i] = Parsed();
      parse_(batch->lines[i], &batch->parsed[i]);
    }
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      batch->ready = true;
    }
    changed_.notify_all();
  }

  void Work() {
    try {
      for (;;) {
        Batch* batch = nullptr;
        {
          std::unique_lock<std::mutex> lock(mutex_);
          changed_.wait(lock, [&] { return stop_ || taken_ < filled_; });
          if (taken_ >= filled_) return;  // stopped with nothing left
          batch = &batches_[taken_++ % kWindow];
        }
        Parse(batch);
      }
    } catch (...) {  // std::bad_alloc: rethrown to the reader, as ParallelFor does
      {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (error_ == nullptr) error_ = std::current_exception();
      }
      changed_.notify_all();
    }
  }

  ParseFn parse_;
  UseFn use_;
  std::vector<Batch> batches_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable changed_;
  // Batches handed to the workers (filled_), taken by one (taken_), used
  // (used_); filled_ - used_ <= kWindow. filled_ and used_ are written by
  // the reader's thread only, under the mutex where workers read them.
  int64_t filled_ = 0;
  int64_t taken_ = 0;
  int64_t used_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};

}  // namespace trainscope::formats
