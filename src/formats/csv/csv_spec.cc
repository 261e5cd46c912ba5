#include "formats/csv/csv_spec.h"

#include <fmt/format.h>

#include <limits>

#include "core/safe_text.h"

namespace trainscope::formats {
namespace {

RowIssue IssueOf(CsvProblem problem) {
  switch (problem) {
    case CsvProblem::kNulByte:
      return RowIssue::kCsvNulByte;
    case CsvProblem::kRecordTooLong:
      return RowIssue::kCsvRecordTooLong;
    case CsvProblem::kUnterminatedQuote:
      return RowIssue::kCsvUnterminatedQuote;
    case CsvProblem::kNone:
      break;
  }
  return RowIssue::kNone;
}

Cell Bad(OnBad policy, RowIssue skip, RowIssue note, const CsvRecord& record,
         const ColumnSpec& spec, std::string_view raw, RowLedger* ledger) {
  switch (policy) {
    case OnBad::kSkipRow:
      ledger->Skip(skip, spec.key, record.line, FieldSample(raw));
      return Cell::kSkipRow;
    case OnBad::kNote:
      ledger->Note(note, spec.key, record.line, FieldSample(raw));
      return Cell::kDefault;
    case OnBad::kIgnore:
      break;
  }
  return Cell::kDefault;
}

Cell Unparsable(const CsvRecord& record, const ColumnSpec& spec, std::string_view raw,
                RowLedger* ledger) {
  return Bad(spec.unparsable, RowIssue::kUnparsableValue, RowIssue::kUnparsableField, record, spec,
             raw, ledger);
}

// A cell that did not parse: missing (empty, N/A) or not a number.
Cell NotANumber(const CsvRecord& record, const ColumnSpec& spec, std::string_view raw,
                RowLedger* ledger) {
  if (!IsMissingValue(raw)) return Unparsable(record, spec, raw, ledger);
  switch (spec.missing) {
    case OnMissing::kDefault:
      return Cell::kDefault;
    case OnMissing::kSkipRow:
      ledger->Skip(RowIssue::kMissingValue, spec.key, record.line, FieldSample(raw));
      return Cell::kSkipRow;
    case OnMissing::kAsUnparsable:
      return Unparsable(record, spec, raw, ledger);
  }
  return Cell::kDefault;
}

// A number outside [0, 2^62): a skip tells negative from too large.
Cell OutOfRange(int64_t value, const CsvRecord& record, const ColumnSpec& spec,
                std::string_view raw, RowLedger* ledger) {
  return Bad(spec.out_of_range, value < 0 ? RowIssue::kNegativeValue : RowIssue::kValueOutOfRange,
             RowIssue::kFieldOutOfRange, record, spec, raw, ledger);
}

}  // namespace

Result<BoundSpec> BindSpec(const CsvSpec& spec, const CsvHeader& header, const std::string& label) {
  BoundSpec bound;
  bound.fields_ = header.size();
  bound.columns_.reserve(spec.columns.size());
  for (const ColumnSpec& column : spec.columns) {
    int index = CsvHeader::kAbsent;
    for (std::string_view alias : column.aliases) {
      if (alias.empty()) break;
      index = header.Find(alias);
      if (index != CsvHeader::kAbsent) break;
    }
    if (index == CsvHeader::kAbsent && column.required) {
      return InvalidInput(
          fmt::format("{}: required column '{}' not found; header found: [{}]\nhint: {}", label,
                      column.aliases[0], TerminalSafe(header.Joined()), spec.hint));
    }
    bound.columns_.push_back(BoundColumn{index, &column});
  }
  return bound;
}

Result<BoundSpec> ReadSpecHeader(CsvReader* reader, CsvRecord* record, const std::string& label,
                                 const CsvSpec& spec) {
  if (!reader->Next(record)) {
    return InvalidInput(
        fmt::format("{}: file is empty (no header line)\nhint: {}", label, spec.hint));
  }
  if (record->problem != CsvProblem::kNone) {
    return InvalidInput(fmt::format("{}: header is not CSV text ({})\nhint: {}", label,
                                    record->error.ToString(), spec.hint));
  }
  return BindSpec(spec, CsvHeader(record->fields), label);
}

bool TakeRecord(const CsvRecord& record, size_t fields, RowLedger* ledger) {
  ledger->CountRead();
  if (record.problem != CsvProblem::kNone) {
    ledger->Skip(IssueOf(record.problem), record.line, record.error.DescribeInRecord());
    return false;
  }
  if (record.fields.size() != fields) {
    ledger->Skip(RowIssue::kCsvWrongFieldCount, record.line,
                 fmt::format("got {} fields, header has {}", record.fields.size(), fields));
    return false;
  }
  return true;
}

Cell ReadMicros(const CsvRecord& record, const BoundColumn& column, RowLedger* ledger,
                int64_t* out) {
  if (!column.present()) return Cell::kDefault;
  const std::string_view raw = record.fields[column.index];
  std::optional<int64_t> value = ParseMicrosToNanos(raw);
  if (!value) return NotANumber(record, *column.spec, raw, ledger);
  if (!InTimeRange(*value)) return OutOfRange(*value, record, *column.spec, raw, ledger);
  *out = *value;
  return Cell::kValue;
}

Cell ReadCount(const CsvRecord& record, const BoundColumn& column, RowLedger* ledger,
               int64_t* out) {
  if (!column.present()) return Cell::kDefault;
  const std::string_view raw = record.fields[column.index];
  std::optional<int64_t> value = ParseInt64(raw);
  if (!value) return NotANumber(record, *column.spec, raw, ledger);
  if (!InTimeRange(*value)) return OutOfRange(*value, record, *column.spec, raw, ledger);
  *out = *value;
  return Cell::kValue;
}

Cell ReadInt32(const CsvRecord& record, const BoundColumn& column, RowLedger* ledger,
               int32_t* out) {
  if (!column.present()) return Cell::kDefault;
  const std::string_view raw = record.fields[column.index];
  std::optional<int64_t> value = ParseInt64(raw);
  if (!value) return NotANumber(record, *column.spec, raw, ledger);
  if (*value < std::numeric_limits<int32_t>::min() ||
      *value > std::numeric_limits<int32_t>::max()) {
    return Unparsable(record, *column.spec, raw, ledger);
  }
  *out = static_cast<int32_t>(*value);
  return Cell::kValue;
}

Cell ReadDecimal(const CsvRecord& record, const BoundColumn& column, RowLedger* ledger,
                 double* out) {
  if (!column.present()) return Cell::kDefault;
  const std::string_view raw = record.fields[column.index];
  std::optional<double> value = ParseDouble(raw);
  if (!value) return NotANumber(record, *column.spec, raw, ledger);
  *out = *value;
  return Cell::kValue;
}

Cell ReadBytes(const CsvRecord& record, const BoundColumn& column, RowLedger* ledger,
               int64_t* out) {
  if (!column.present()) return Cell::kDefault;
  const std::string_view raw = record.fields[column.index];
  const int shift = column.spec->unit == ColumnUnit::kKibibytes ? 10 : 20;
  std::optional<int64_t> value = ParseBinaryScaledBytes(raw, shift);
  if (!value) return NotANumber(record, *column.spec, raw, ledger);
  *out = *value;
  return Cell::kValue;
}

std::string FieldSample(std::string_view field) {
  constexpr size_t kMaxSampleBytes = 120;
  const std::string_view text = TrimField(field);
  if (text.size() <= kMaxSampleBytes) return std::string(text);
  size_t cut = kMaxSampleBytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return fmt::format("{}... ({} bytes)", text.substr(0, cut), text.size());
}

}  // namespace trainscope::formats
