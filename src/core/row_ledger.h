// RowLedger: the per-file account of rows read, used and skipped.
//
// Bad input never silently loses rows: every row a reader sees is either used
// or skipped with a named reason (core/row_issues.h). The three counts are
// kept apart so that they check each other: rows_read is counted where
// records come out of the CSV reader (events out of the scanner), rows_used
// where a row is appended to its table, rows_skipped is the sum of the
// per-reason counts. Balanced() is rows_read == rows_used + rows_skipped; a
// reader that drops a row without a reason makes it false, and the loader
// then reports the file in the input health (and asserts in debug builds).
// Field-level problems that do not cost the row (an N/A metric, a negative
// size) are counted as notes. A few samples per reason keep the line number
// and detail so the user can look.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/row_issues.h"

namespace trainscope {

struct RowIssueSample {
  int64_t line = 0;  // 1-based physical line where the record starts
  std::string reason;
  std::string detail;
};

class RowLedger {
 public:
  static constexpr size_t kSamplesPerReason = 3;

  RowLedger() = default;
  explicit RowLedger(std::string file) : file_(std::move(file)) {}

  // |n| more records came out of the reader (before any check on them).
  void CountRead(int64_t n = 1) { rows_read_ += n; }
  // |n| more rows were appended to the model.
  void Use(int64_t n = 1) { rows_used_ += n; }

  // One row skipped (or one field noted) for |issue|. The second form fills
  // a template key ("negative {}") with |column|.
  void Skip(RowIssue issue, int64_t line, std::string detail) {
    Skip(issue, std::string_view(), line, std::move(detail));
  }
  void Skip(RowIssue issue, std::string_view column, int64_t line, std::string detail);
  void Note(RowIssue issue, int64_t line, std::string detail) {
    Note(issue, std::string_view(), line, std::move(detail));
  }
  void Note(RowIssue issue, std::string_view column, int64_t line, std::string detail);
  // |n| more rows skipped (notes) for |issue| whose samples were already
  // offered (batched readers count the rest in bulk).
  void SkipUnsampled(RowIssue issue, int64_t n);
  void NoteUnsampled(RowIssue issue, int64_t n);

  // Adds the account of a later part of the same file (a chunk read on its
  // own thread: formats/csv/csv_chunks.h) whose lines were counted from 1:
  // |line_offset| is added to its samples' lines. Samples stay the first
  // kSamplesPerReason per reason in file order when parts are absorbed in
  // file order.
  void Absorb(const RowLedger& later, int64_t line_offset);

  const std::string& file() const { return file_; }
  int64_t rows_read() const { return rows_read_; }
  int64_t rows_used() const { return rows_used_; }
  int64_t rows_skipped() const { return rows_skipped_; }
  bool Balanced() const { return rows_read_ == rows_used_ + rows_skipped_; }
  // Keyed by the printed key (RowIssueKey), sorted by it.
  const std::map<std::string, int64_t>& skipped_by_reason() const { return skipped_; }
  const std::map<std::string, int64_t>& notes_by_reason() const { return notes_; }
  const std::vector<RowIssueSample>& samples() const { return samples_; }

 private:
  void Sample(const std::map<std::string, int64_t>& counts, const std::string& reason, int64_t line,
              std::string detail);

  std::string file_;
  int64_t rows_read_ = 0;
  int64_t rows_used_ = 0;
  int64_t rows_skipped_ = 0;
  std::map<std::string, int64_t> skipped_;
  std::map<std::string, int64_t> notes_;
  std::vector<RowIssueSample> samples_;
};

// The printed key of |issue|: its catalogue key, with |column| in place of
// "{}" for a template.
std::string RowIssueKey(RowIssue issue, std::string_view column = {});

// "<file>: rows do not add up: read R, used U, skipped S (...)" for a ledger
// that is not Balanced(), for the input health; empty when it is.
std::string LedgerImbalance(const RowLedger& ledger);

}  // namespace trainscope
