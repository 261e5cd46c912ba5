// RowLedger: the per-file account of rows read, used and skipped.
//
// Bad input never silently loses rows: every row a reader sees is either used
// or skipped with a named reason, so rows_read == rows_used + rows_skipped
// always holds (tests check it). Field-level problems that do not cost the row
// (an N/A metric, a negative size) are counted as notes. A few samples per
// reason keep the line number and detail so the user can look.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

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

  void Use() {
    ++rows_read_;
    ++rows_used_;
  }
  void UseMany(int64_t n) {
    rows_read_ += n;
    rows_used_ += n;
  }
  void Skip(const std::string& reason, int64_t line, std::string detail);
  void Note(const std::string& reason, int64_t line, std::string detail);
  // |n| more rows skipped (notes) for |reason| whose samples were already
  // offered (batched readers count the rest in bulk).
  void SkipUnsampled(const std::string& reason, int64_t n);
  void NoteUnsampled(const std::string& reason, int64_t n);

  const std::string& file() const { return file_; }
  int64_t rows_read() const { return rows_read_; }
  int64_t rows_used() const { return rows_used_; }
  int64_t rows_skipped() const { return rows_read_ - rows_used_; }
  const std::map<std::string, int64_t>& skipped_by_reason() const { return skipped_; }
  const std::map<std::string, int64_t>& notes_by_reason() const { return notes_; }
  const std::vector<RowIssueSample>& samples() const { return samples_; }

 private:
  void Sample(const std::map<std::string, int64_t>& counts, const std::string& reason, int64_t line,
              std::string detail);

  std::string file_;
  int64_t rows_read_ = 0;
  int64_t rows_used_ = 0;
  std::map<std::string, int64_t> skipped_;
  std::map<std::string, int64_t> notes_;
  std::vector<RowIssueSample> samples_;
};

}  // namespace trainscope
