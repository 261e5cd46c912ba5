// BatchLedger: the RowLedger entries of one batch of events, recorded on a
// worker thread and replayed into the file's ledger at commit.
//
// A trace can skip millions of events for one reason (Kineto instant events,
// counters); the batch keeps a count per reason and only the samples the
// ledger could still keep (its first kSamplesPerReason per reason), so the
// committing thread does a few map updates per batch, not one per event.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/row_ledger.h"

namespace trainscope::formats::trace {

class BatchLedger {
 public:
  // |index| is the 1-based index of the event within the batch; |reason| a
  // string literal (reasons are compared by text).
  void Skip(const char* reason, int64_t index, size_t offset, std::string_view detail = {});
  void Note(const char* reason, int64_t index, std::string_view detail);
  void CountEvent() { ++events_; }
  int64_t events() const { return events_; }

  // Adds the batch to |ledger|: events before it were |base| (so batch index
  // i is event base + i); every event not skipped counts as used, except
  // |deferred| ones the reader settles later (staged events it routes at
  // the end of the file).
  void CommitTo(int64_t base, RowLedger* ledger, int64_t deferred = 0) const;
  void Clear();

 private:
  struct Entry {
    const char* reason;
    int64_t count = 0;
    std::vector<RowIssueSample> samples;  // line = index within the batch
  };
  static Entry* Find(std::vector<Entry>* entries, const char* reason);
  static void Add(std::vector<Entry>* entries, const char* reason, int64_t index,
                  std::string detail);

  std::vector<Entry> skipped_;
  std::vector<Entry> notes_;
  int64_t events_ = 0;
  int64_t skipped_count_ = 0;
};

}  // namespace trainscope::formats::trace
