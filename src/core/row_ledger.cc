#include "core/row_ledger.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>

namespace trainscope {

std::string RowIssueKey(RowIssue issue, std::string_view column) {
  const std::string_view key = Info(issue).key;
  const size_t hole = key.find("{}");
  if (hole == std::string_view::npos) return std::string(key);
  std::string out;
  out.reserve(key.size() + column.size());
  out.append(key.substr(0, hole)).append(column).append(key.substr(hole + 2));
  return out;
}

std::string LedgerImbalance(const RowLedger& ledger) {
  if (ledger.Balanced()) return {};
  return fmt::format(
      "{}: rows do not add up: read {}, used {}, skipped {} ({} unaccounted)\nhint: a reader "
      "dropped or double-counted rows; the counts above are what it reported, please report this "
      "file",
      ledger.file(), ledger.rows_read(), ledger.rows_used(), ledger.rows_skipped(),
      ledger.rows_read() - ledger.rows_used() - ledger.rows_skipped());
}

void RowLedger::Sample(const std::map<std::string, int64_t>& counts, const std::string& reason,
                       int64_t line, std::string detail) {
  auto it = counts.find(reason);
  if (it != counts.end() && it->second <= static_cast<int64_t>(kSamplesPerReason)) {
    samples_.push_back(RowIssueSample{line, reason, std::move(detail)});
  }
}

void RowLedger::Skip(RowIssue issue, std::string_view column, int64_t line, std::string detail) {
  assert(Info(issue).kind == RowIssueKind::kSkip);
  const std::string key = RowIssueKey(issue, column);
  ++rows_skipped_;
  ++skipped_[key];
  Sample(skipped_, key, line, std::move(detail));
}

void RowLedger::Note(RowIssue issue, std::string_view column, int64_t line, std::string detail) {
  assert(Info(issue).kind == RowIssueKind::kNote);
  const std::string key = RowIssueKey(issue, column);
  ++notes_[key];
  Sample(notes_, key, line, std::move(detail));
}

void RowLedger::Absorb(const RowLedger& later, int64_t line_offset) {
  rows_read_ += later.rows_read_;
  rows_used_ += later.rows_used_;
  rows_skipped_ += later.rows_skipped_;
  for (const RowIssueSample& sample : later.samples_) {
    const auto kept = std::count_if(samples_.begin(), samples_.end(), [&](const RowIssueSample& s) {
      return s.reason == sample.reason;
    });
    if (kept >= static_cast<std::ptrdiff_t>(kSamplesPerReason)) continue;
    samples_.push_back(RowIssueSample{sample.line + line_offset, sample.reason, sample.detail});
  }
  for (const auto& [reason, count] : later.skipped_) skipped_[reason] += count;
  for (const auto& [reason, count] : later.notes_) notes_[reason] += count;
}

void RowLedger::SkipUnsampled(RowIssue issue, int64_t n) {
  if (n <= 0) return;
  rows_skipped_ += n;
  skipped_[RowIssueKey(issue)] += n;
}

void RowLedger::NoteUnsampled(RowIssue issue, int64_t n) {
  if (n > 0) notes_[RowIssueKey(issue)] += n;
}

}  // namespace trainscope
