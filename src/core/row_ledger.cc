#include "core/row_ledger.h"

namespace trainscope {

void RowLedger::Sample(const std::map<std::string, int64_t>& counts, const std::string& reason,
                       int64_t line, std::string detail) {
  auto it = counts.find(reason);
  if (it != counts.end() && it->second <= static_cast<int64_t>(kSamplesPerReason)) {
    samples_.push_back(RowIssueSample{line, reason, std::move(detail)});
  }
}

void RowLedger::Skip(const std::string& reason, int64_t line, std::string detail) {
  ++rows_read_;
  ++skipped_[reason];
  Sample(skipped_, reason, line, std::move(detail));
}

void RowLedger::Note(const std::string& reason, int64_t line, std::string detail) {
  ++notes_[reason];
  Sample(notes_, reason, line, std::move(detail));
}

void RowLedger::SkipUnsampled(const std::string& reason, int64_t n) {
  if (n <= 0) return;
  rows_read_ += n;
  skipped_[reason] += n;
}

void RowLedger::NoteUnsampled(const std::string& reason, int64_t n) {
  if (n > 0) notes_[reason] += n;
}

}  // namespace trainscope
