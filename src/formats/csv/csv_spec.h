// Declarative CSV column specs and the one row binder that reads them.
//
// Each CSV file this tool reads is described by a CsvSpec: its columns, each
// with the header names it has had across profiler versions (aliases),
// whether the file is unusable without it, its unit, and what a bad cell
// costs. BindSpec finds the columns in a header (or fails naming the file,
// the column and a hint); the Read* functions convert one cell by its unit
// and account a bad one in the file's RowLedger under the catalogue's keys
// (core/row_issues.h) filled with the column's key: "negative Computing".
// The readers keep only what is particular to their file: which model row a
// column fills.
#pragma once

#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/numbers.h"
#include "core/row_ledger.h"
#include "core/status.h"
#include "formats/csv/csv_header.h"
#include "formats/csv/csv_reader.h"

namespace trainscope::formats {

enum class ColumnUnit : uint8_t {
  kText,       // trimmed text
  kMicros,     // decimal µs -> int64 ns (never through a double), must lie in [0, 2^62)
  kCount,      // integer, must lie in [0, 2^62)
  kInt32,      // integer id or size; text or a value outside int32 is unparsable
  kRatio,      // plain decimal -> float; NaN when absent or not a number (never accounted)
  kDecimal,    // decimal -> double
  kMebibytes,  // decimal MB (2^20 bytes, as torch_npu divides) -> int64 bytes, exact; may be
               // negative
  kKibibytes,  // decimal KB (2^10 bytes) -> int64 bytes, exact; may be negative
};

// What a bad cell costs. kSkipRow: the row is skipped under the column's
// reason; kNote: the row is kept with the default and the field noted;
// kIgnore: the default, silently.
enum class OnBad : uint8_t { kSkipRow, kNote, kIgnore };

// A cell that is empty or N/A: the default silently, the row skipped as
// "missing <key>", or taken as unparsable (then |unparsable| decides).
enum class OnMissing : uint8_t { kDefault, kSkipRow, kAsUnparsable };

struct ColumnSpec {
  std::string_view key;  // in ledger keys: "start time" -> "missing start time"
  // Header names across versions, compared case- and space-insensitively;
  // the first is the one error messages name. Unused slots are empty.
  std::array<std::string_view, 3> aliases;
  bool required = false;  // the file is rejected when the header lacks it
  ColumnUnit unit = ColumnUnit::kText;
  OnMissing missing = OnMissing::kDefault;
  OnBad unparsable = OnBad::kIgnore;
  // Outside [0, 2^62) for kMicros and kCount. A skip says "negative <key>"
  // or "<key> out of range"; a note says "<key> out of range".
  OnBad out_of_range = OnBad::kIgnore;
};

struct CsvSpec {
  std::string_view file;  // "kernel_details.csv", for docs and tests
  std::span<const ColumnSpec> columns;
  std::string_view hint;  // what the file should look like (error messages)
};

// A spec column found in a header.
struct BoundColumn {
  int index = CsvHeader::kAbsent;
  const ColumnSpec* spec = nullptr;
  bool present() const { return index != CsvHeader::kAbsent; }
};

class BoundSpec {
 public:
  const BoundColumn& operator[](size_t i) const { return columns_[i]; }
  // Fields a record must have: the header's count.
  size_t fields() const { return fields_; }

 private:
  friend Result<BoundSpec> BindSpec(const CsvSpec& spec, const CsvHeader& header,
                                    const std::string& label);
  std::vector<BoundColumn> columns_;
  size_t fields_ = 0;
};

// The columns of |spec| in |header|, in spec order. InvalidInput naming
// |label|, the first missing required column (its first alias), the header
// found and the spec's hint.
Result<BoundSpec> BindSpec(const CsvSpec& spec, const CsvHeader& header, const std::string& label);

// Reads the header record of |reader| and binds |spec| to it: InvalidInput
// for an empty file, a header that is not CSV text, or a missing column.
Result<BoundSpec> ReadSpecHeader(CsvReader* reader, CsvRecord* record, const std::string& label,
                                 const CsvSpec& spec);

// Counts |record| read in |ledger|, then skips it when it is damaged (NUL
// byte, over the size limit, unterminated quote: the reader has already
// resynchronised) or has another field count than the header. True when
// the record is usable.
bool TakeRecord(const CsvRecord& record, size_t fields, RowLedger* ledger);

// What a Read* call made of a cell.
enum class Cell : uint8_t {
  kValue,    // *out holds the value
  kDefault,  // absent column, or a missing/bad cell the spec lets pass: *out untouched
  kSkipRow,  // the row is skipped and accounted: the caller moves on
};

Cell ReadMicros(const CsvRecord& record, const BoundColumn& column, RowLedger* ledger,
                int64_t* out);
Cell ReadCount(const CsvRecord& record, const BoundColumn& column, RowLedger* ledger, int64_t* out);
Cell ReadInt32(const CsvRecord& record, const BoundColumn& column, RowLedger* ledger, int32_t* out);
Cell ReadDecimal(const CsvRecord& record, const BoundColumn& column, RowLedger* ledger,
                 double* out);
// A kMebibytes/kKibibytes cell as bytes (core/numbers.h
// ParseBinaryScaledBytes). Sizes may be negative: no range check.
Cell ReadBytes(const CsvRecord& record, const BoundColumn& column, RowLedger* ledger, int64_t* out);
// The trimmed cell, empty for an absent column.
inline std::string_view ReadText(const CsvRecord& record, const BoundColumn& column) {
  return column.present() ? TrimField(record.fields[column.index]) : std::string_view();
}

// A field quoted in a ledger sample: trimmed and cut to 120 bytes (on a
// character boundary) with its full length, so a 16 MiB field does not
// travel into every report that shows the sample.
std::string FieldSample(std::string_view field);

// The fast path of ReadMicros, inline for the big files: a well-formed
// in-range cell costs one parse and one range check.
inline Cell ReadMicrosInline(const CsvRecord& record, const BoundColumn& column, RowLedger* ledger,
                             int64_t* out) {
  if (column.present()) {
    std::optional<int64_t> value = ParseMicrosToNanos(record.fields[column.index]);
    if (value && InTimeRange(*value)) {
      *out = *value;
      return Cell::kValue;
    }
  }
  return ReadMicros(record, column, ledger, out);
}

// The fast path of ReadInt32: a well-formed int32 cell, or an absent column.
inline Cell ReadInt32Inline(const CsvRecord& record, const BoundColumn& column, RowLedger* ledger,
                            int32_t* out) {
  if (!column.present()) return Cell::kDefault;
  std::optional<int64_t> value = ParseInt64(record.fields[column.index]);
  if (value && *value >= INT32_MIN && *value <= INT32_MAX) {
    *out = static_cast<int32_t>(*value);
    return Cell::kValue;
  }
  return ReadInt32(record, column, ledger, out);
}

// A ratio cell ("0.964", "N/A"): NaN when absent or not a number.
// Ratios are short plain decimals ("0.964", "0.0", "N/A"); parsing them
// directly is several times cheaper than from_chars, and float precision is
// all the tables keep. Anything else takes the general path.
inline float ReadRatio(const CsvRecord& record, const BoundColumn& column) {
  if (!column.present()) return NAN;
  const std::string_view field = record.fields[column.index];
  const char* p = field.data();
  const char* end = p + field.size();
  uint64_t mantissa = 0;
  int digits = 0;
  int scale = 0;
  while (p < end && (*p >= '0' && *p <= '9')) {
    mantissa = mantissa * 10 + static_cast<uint64_t>(*p++ - '0');
    ++digits;
  }
  if (p < end && *p == '.') {
    ++p;
    while (p < end && (*p >= '0' && *p <= '9')) {
      mantissa = mantissa * 10 + static_cast<uint64_t>(*p++ - '0');
      ++digits;
      ++scale;
    }
  }
  if (p == end && digits > 0 && digits <= 15) {
    static constexpr double kPow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                        1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    return static_cast<float>(static_cast<double>(mantissa) / kPow10[scale]);
  }
  std::optional<double> value = ParseDouble(field);
  return value ? static_cast<float>(*value) : NAN;
}

}  // namespace trainscope::formats
