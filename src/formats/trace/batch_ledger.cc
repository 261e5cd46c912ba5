#include "formats/trace/batch_ledger.h"

#include <fmt/format.h>

namespace trainscope::formats::trace {

BatchLedger::Entry* BatchLedger::Find(std::vector<Entry>* entries, RowIssue reason) {
  for (Entry& e : *entries) {
    if (e.reason == reason) return &e;
  }
  return nullptr;
}

namespace {

// Samples quote the input (a bad ts token, a dur): a hostile file can make
// that token megabytes long, so a sample keeps its first bytes only (cut
// before a UTF-8 continuation byte).
constexpr size_t kMaxDetailBytes = 120;

void Shorten(std::string* detail) {
  if (detail->size() <= kMaxDetailBytes) return;
  size_t cut = kMaxDetailBytes;
  while (cut > 0 && (static_cast<unsigned char>((*detail)[cut]) & 0xC0) == 0x80) --cut;
  detail->resize(cut);
  *detail += "...";
}

}  // namespace

void BatchLedger::Add(std::vector<Entry>* entries, RowIssue reason, int64_t index,
                      std::string detail) {
  Shorten(&detail);
  Entry* e = Find(entries, reason);
  if (e == nullptr) {
    entries->push_back(Entry{reason, 0, {}});
    e = &entries->back();
  }
  ++e->count;
  if (e->samples.size() < RowLedger::kSamplesPerReason) {
    e->samples.push_back(RowIssueSample{index, std::string(), std::move(detail)});
  }
}

void BatchLedger::Skip(RowIssue reason, int64_t index, size_t offset, std::string_view detail) {
  // Most skips only count (a trace can skip millions of events for one
  // reason): the detail text is built only for a sample that is kept.
  if (Entry* e = Find(&skipped_, reason);
      e != nullptr && e->samples.size() >= RowLedger::kSamplesPerReason) {
    ++e->count;
    return;
  }
  std::string text = offset ? fmt::format("byte {}", offset) : std::string();
  if (!detail.empty()) text += (text.empty() ? "" : ": ") + std::string(detail);
  Add(&skipped_, reason, index, std::move(text));
}

void BatchLedger::Note(RowIssue reason, int64_t index, std::string_view detail) {
  if (Entry* e = Find(&notes_, reason);
      e != nullptr && e->samples.size() >= RowLedger::kSamplesPerReason) {
    ++e->count;
    return;
  }
  Add(&notes_, reason, index, std::string(detail));
}

void BatchLedger::CommitTo(int64_t base, RowLedger* ledger) const {
  ledger->CountRead(events_);
  for (const Entry& e : skipped_) {
    for (const RowIssueSample& s : e.samples) ledger->Skip(e.reason, base + s.line, s.detail);
    ledger->SkipUnsampled(e.reason, e.count - static_cast<int64_t>(e.samples.size()));
  }
  for (const Entry& e : notes_) {
    for (const RowIssueSample& s : e.samples) ledger->Note(e.reason, base + s.line, s.detail);
    ledger->NoteUnsampled(e.reason, e.count - static_cast<int64_t>(e.samples.size()));
  }
  ledger->Use(used_);
}

void BatchLedger::Clear() {
  skipped_.clear();
  notes_.clear();
  events_ = 0;
  used_ = 0;
}

}  // namespace trainscope::formats::trace
