// BatchLedger: the RowLedger entries of one batch of events, recorded on a
// worker thread and replayed into the file's ledger at commit.
//
// A trace can skip millions of events for one reason (Kineto instant events,
// counters); the batch keeps a count per reason and only the samples the
// ledger could still keep (its first kSamplesPerReason per reason), so the
// committing thread does a few map updates per batch, not one per event.
// The three counts stay independent, as in RowLedger: CountEvent where the
// scanner hands an event over, Use where the sink keeps it, Skip with a
// reason; CommitTo copies each as it is (nothing is derived).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/row_issues.h"
#include "core/row_ledger.h"

namespace trainscope::formats::trace {

class BatchLedger {
 public:
  // |index| is the 1-based index of the event within the batch.
  void Skip(RowIssue reason, int64_t index, size_t offset, std::string_view detail = {});
  void Note(RowIssue reason, int64_t index, std::string_view detail);
  void CountEvent() { ++events_; }
  // The event was kept (appended to the batch's records, or metadata read).
  void Use() { ++used_; }
  int64_t events() const { return events_; }

  // Adds the batch to |ledger|: events before it were |base| (so batch index
  // i is event base + i).
  void CommitTo(int64_t base, RowLedger* ledger) const;
  void Clear();

 private:
  struct Entry {
    RowIssue reason;
    int64_t count = 0;
    std::vector<RowIssueSample> samples;  // line = index within the batch
  };
  static Entry* Find(std::vector<Entry>* entries, RowIssue reason);
  static void Add(std::vector<Entry>* entries, RowIssue reason, int64_t index, std::string detail);

  std::vector<Entry> skipped_;
  std::vector<Entry> notes_;
  int64_t events_ = 0;
  int64_t used_ = 0;
};

}  // namespace trainscope::formats::trace
