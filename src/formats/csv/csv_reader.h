// CsvReader: an RFC-4180 record reader over an in-memory buffer.
//
// Profile CSVs come from two writers (Python csv with CRLF, CANN C++ with LF),
// carry quoted fields with doubled quotes and, in operator_details.csv,
// multi-line fields. So records are never split by lines: a small explicit
// state machine walks the bytes. Unquoted fields (almost all of them) are
// returned as views into the buffer without copying; only quoted fields with
// doubled quotes are unescaped, into a per-record scratch buffer.
//
// Values are returned raw: trailing TABs after timestamps and the literal
// quotes that profilers put inside quoted fields are for the caller to strip
// (core/numbers.h TrimField).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace trainscope::formats {

struct CsvRecord {
  // Views into the reader's buffer or its scratch space; valid until the next
  // call to Next() on the reader that filled them.
  std::vector<std::string_view> fields;
  int64_t line = 0;          // 1-based physical line where the record starts
  uint64_t byte_offset = 0;  // offset of the record's first byte in the buffer
};

struct CsvError {
  std::string message;
  int64_t line = 0;    // 1-based physical line of the offending byte
  int64_t column = 0;  // 1-based byte column within that line
  uint64_t byte_offset = 0;
  int64_t record_line = 0;  // line where the broken record started

  // "line 12, column 4 (byte 530): unterminated quoted field"
  std::string ToString() const;
};

// Where the reader is inside a field. Kept as an explicit enum so the quoted
// path (rare) reads as the small automaton it is.
enum class CsvState : uint8_t {
  kFieldStart,     // before the first byte of a field
  kUnquoted,       // inside an unquoted field
  kQuoted,         // inside a quoted field
  kQuoteInQuoted,  // saw '"' inside a quoted field: end of field or doubled quote
  kAfterQuoted,    // bytes between a closing quote and the delimiter (lenient)
  kRecordEnd,      // the record is complete
};

class CsvReader {
 public:
  // A bigger record is certainly not a profile row but a broken or binary file.
  static constexpr size_t kDefaultMaxRecordBytes = 16u << 20;

  explicit CsvReader(std::string_view data, size_t max_record_bytes = kDefaultMaxRecordBytes);

  // Reads the next record into |out| (its field vector is reused, so pass the
  // same CsvRecord every time to avoid allocations). Returns false at the end
  // of the data or on error; error() tells which. Blank lines are skipped.
  bool Next(CsvRecord* out);

  // Non-null once a syntax error stopped the reader. Reading never resumes
  // after an error: a broken quote makes the rest of the file ambiguous.
  const CsvError* error() const { return failed_ ? &error_ : nullptr; }

  // Bytes consumed so far (the end of the last record returned).
  uint64_t position() const { return pos_; }

 private:
  // Reads a quoted field starting at the opening quote at pos_. On success
  // appends the field to |fields| and leaves pos_ after the closing quote and
  // any lenient trailing bytes.
  bool ReadQuotedField(CsvRecord* out);
  bool Fail(uint64_t offset, std::string message);
  void NewLine(uint64_t next_line_start) {
    ++line_;
    line_start_ = next_line_start;
  }

  std::string_view data_;
  size_t max_record_bytes_;
  uint64_t pos_ = 0;
  int64_t line_ = 1;
  uint64_t line_start_ = 0;  // offset of the first byte of the current line
  uint64_t record_start_ = 0;
  int64_t record_line_ = 1;
  CsvState state_ = CsvState::kFieldStart;

  // Unescaped quoted fields live here until the record is complete; their
  // views are patched in at the end because appending may reallocate.
  struct Fixup {
    size_t field_index;
    size_t offset;
    size_t length;
  };
  std::string scratch_;
  std::vector<Fixup> fixups_;

  bool failed_ = false;
  CsvError error_;
};

}  // namespace trainscope::formats
