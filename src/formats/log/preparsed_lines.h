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

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/ordered_work.h"
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
      : parse_(std::move(parse)),
        use_(std::move(use)),
        work_(
            OrderedWork<Batch>::NewSlots(kWindow, NewBatch), workers,
            // Batches are offered by Submit, on the reader's thread.
            [this](int64_t index, Batch*) {
              return index < filled_ ? ClaimAnswer::kTaken : ClaimAnswer::kNotYet;
            },
            [this](unsigned, int64_t, Batch* batch) { Parse(batch); }) {}

  PreparsedLines(const PreparsedLines&) = delete;
  PreparsedLines& operator=(const PreparsedLines&) = delete;

  // Copies |line| into the batch being filled; a full batch goes to the
  // workers, and when the window is full the oldest is used first.
  void Add(const LogLine& line) {
    Batch& batch = *work_.SlotOf(filled_);
    LogLine copy = line;
    const size_t at = batch.text.size();
    batch.text.append(line.text);
    copy.text = std::string_view(batch.text.data() + at, line.text.size());
    batch.lines.push_back(copy);
    if (batch.lines.size() >= kBatchLines || batch.text.size() >= kBatchBytes) Submit();
  }

  // Uses every line added; call once, after the last Add.
  void Finish() {
    if (!work_.SlotOf(filled_)->lines.empty()) Submit();
    while (used_ < filled_) UseOldest();
  }

 private:
  struct Batch {
    std::string text;
    std::vector<LogLine> lines;
    std::vector<Parsed> parsed;
  };

  static std::unique_ptr<Batch> NewBatch() {
    auto batch = std::make_unique<Batch>();
    // Views into the text must survive its growth: room for a full batch
    // and one more line of the longest kind.
    batch->text.reserve(kBatchBytes + kMaxLineBytes + 1);
    batch->lines.reserve(kBatchLines);
    return batch;
  }

  void Submit() {
    work_.Change([this] { ++filled_; });
    if (filled_ - used_ == static_cast<int64_t>(kWindow)) UseOldest();
  }

  // The oldest batch once parsed (the reader's thread parses batches no
  // worker has taken meanwhile: it would otherwise idle), its lines handed
  // to |use_|.
  void UseOldest() {
    Batch& batch = *work_.Take(/*help=*/true);
    for (size_t i = 0; i < batch.lines.size(); ++i) use_(batch.lines[i], batch.parsed[i]);
    batch.text.clear();
    batch.lines.clear();
    work_.Release();
    ++used_;
  }

  void Parse(Batch* batch) const {
    batch->parsed.resize(batch->lines.size());
    for (size_t i = 0; i < batch->lines.size(); ++i) {
      batch->parsed[i] = Parsed();
      parse_(batch->lines[i], &batch->parsed[i]);
    }
  }

  ParseFn parse_;
  UseFn use_;
  // Batches offered to the workers (filled_, written under the work's lock
  // by the reader's thread, which alone writes it) and used (used_, the
  // reader's own); filled_ - used_ <= kWindow.
  int64_t filled_ = 0;
  int64_t used_ = 0;
  OrderedWork<Batch> work_;  // last: its workers start once the rest exists
};

}  // namespace trainscope::formats
