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
//
// Damage costs one record, never the rest of the file: a record with a NUL
// byte, one longer than the record limit (16 MiB by default) and one whose
// quoted field never closes are returned with |problem| set and no fields,
// and reading goes on. RFC 4180 makes everything after an unclosed quote one
// field; the reader keeps that reading up to the limit or the end of the
// file, then gives up on the record and resynchronises at the first line
// break after the opening quote, so the rows after a stray quote are read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace trainscope::formats {

struct CsvError {
  std::string message;
  int64_t line = 0;    // 1-based physical line of the offending byte
  int64_t column = 0;  // 1-based byte column within that line
  uint64_t byte_offset = 0;
  int64_t record_line = 0;  // line where the broken record started

  // "line 12, column 4 (byte 530): unterminated quoted field"
  std::string ToString() const;
  // The same without the absolute line, for a row-ledger sample that carries
  // the record's line itself: "column 4 (byte 530): ..." or, when the byte
  // lies on a later line of a multi-line record, "record line 3, column
  // 4 (byte 530): ...". Independent of where reading started, so a chunk
  // read on its own (csv_chunks.h) describes a problem as a whole-file read.
  std::string DescribeInRecord() const;
};

// Why a record could not be read. The record is skipped; the file is not.
enum class CsvProblem : uint8_t {
  kNone,
  kNulByte,            // a NUL byte: binary data inside the record
  kRecordTooLong,      // longer than the reader's limit (a runaway quote?)
  kUnterminatedQuote,  // a quoted field still open at the end of the file
};

// The RowLedger reason for a problem ("NUL byte in the record", ...).
const char* CsvProblemReason(CsvProblem problem);

struct CsvRecord {
  // Views into the reader's buffer or its scratch space; valid until the next
  // call to Next() on the reader that filled them. Empty when |problem| is set.
  std::vector<std::string_view> fields;
  int64_t line = 0;          // 1-based physical line where the record starts
  uint64_t byte_offset = 0;  // offset of the record's first byte in the buffer
  CsvProblem problem = CsvProblem::kNone;
  CsvError error;  // where and what, when |problem| is set
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
  // A bigger record is certainly not a profile row but a broken or binary
  // file (the longest real fields, operator shapes and call stacks, stay
  // below 1 MB). It also bounds the scratch memory of one record.
  static constexpr size_t kDefaultMaxRecordBytes = 16u << 20;
  // Overrides kDefaultMaxRecordBytes for the profile readers.
  static constexpr const char* kMaxRecordBytesEnv = "TRAINSCOPE_CSV_MAX_RECORD_BYTES";

  // kDefaultMaxRecordBytes, or $TRAINSCOPE_CSV_MAX_RECORD_BYTES when that is
  // a positive integer (bytes). Read once per process.
  static size_t ConfiguredMaxRecordBytes();

  explicit CsvReader(std::string_view data, size_t max_record_bytes = kDefaultMaxRecordBytes);
  // Reads only the bytes [begin, end) of |data|, which must start at a record
  // start (a chunk of a file split at line starts: csv_chunks.h). Byte offsets
  // stay offsets into |data|; lines count from 1 at |begin| (the caller knows
  // how many lines came before once the earlier chunks are read).
  CsvReader(std::string_view data, size_t max_record_bytes, size_t begin, size_t end);

  // Reads the next record into |out| (its field vector is reused, so pass the
  // same CsvRecord every time to avoid allocations). Returns false only at
  // the end of the data. A damaged record comes back with out->problem set
  // (and no fields): the caller counts it and calls Next() again. Blank
  // lines are skipped.
  bool Next(CsvRecord* out);

  // For tests: off, every record takes the byte-by-byte path that NextFast
  // hands unusual records to, the reference the fast path must agree with.
  void set_fast_path(bool on) { fast_path_ = on; }
  // Records read whole on the fast path so far (the rest took the slow one).
  uint64_t fast_records() const { return fast_records_; }

  // Bytes consumed so far (the end of the last record returned).
  uint64_t position() const { return pos_; }
  // The physical line the reader is on (1-based from where it started): after
  // the last record of a chunk, 1 + the line breaks it consumed.
  int64_t line() const { return line_; }
  size_t max_record_bytes() const { return max_record_bytes_; }

 private:
  // Reads the record at pos_ when it is an ordinary one: unquoted fields and
  // quoted ones that close right before a delimiter, no NUL, no line break
  // inside quotes, within the record limit. Stops are found 64 bytes at a
  // time and the record ends at its first line break. Returns false, with
  // pos_ and the line count untouched, for anything else: the caller reads
  // the record again on the slow path, which decides (and reports) it.
  bool NextFast(CsvRecord* out);
  // Ends a record the fast path read whole (its fields in |out|), reading
  // on at |next|.
  bool FinishFast(size_t next, CsvRecord* out);
  // Ends a record read whole: patches the scratch views in.
  bool Finish(CsvRecord* out);
  // Reads a quoted field starting at the opening quote at pos_. On success
  // appends the field to |fields| and leaves pos_ after the closing quote and
  // any lenient trailing bytes. On failure (too long, unterminated) fills
  // out->problem and resynchronises; returns false.
  bool ReadQuotedField(CsvRecord* out);
  // Marks |out| as damaged by |problem| at |offset| (with the current line).
  void SetProblem(CsvRecord* out, CsvProblem problem, uint64_t offset, std::string message);
  // Moves pos_ to the first line break at or after |from| (or the end), so
  // the next call starts at the following line.
  void SkipToLineBreak(uint64_t from);
  // Remembers the first NUL byte of the current record at |pos|.
  void NoteNul(uint64_t pos);
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

  // First NUL byte of the current record (reported once the record ends, so
  // the reader stays in step with the record structure).
  bool nul_seen_ = false;
  CsvError nul_at_;
  bool fast_path_ = true;
  uint64_t fast_records_ = 0;
};

}  // namespace trainscope::formats
