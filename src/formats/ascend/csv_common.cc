#include "formats/ascend/csv_common.h"

#include <fmt/format.h>

#include <optional>

#include "core/mapped_file.h"
#include "core/numbers.h"
#include "core/safe_text.h"

namespace trainscope::formats {

Result<CsvHeader> ReadCsvHeader(CsvReader* reader, CsvRecord* record, const std::string& label,
                                std::string_view hint) {
  if (!reader->Next(record)) {
    return InvalidInput(fmt::format("{}: file is empty (no header line)\nhint: {}", label, hint));
  }
  if (record->problem != CsvProblem::kNone) {
    return InvalidInput(fmt::format("{}: header is not CSV text ({})\nhint: {}", label,
                                    record->error.ToString(), hint));
  }
  return CsvHeader(record->fields);
}

bool SkipDamagedRecord(const CsvRecord& record, RowLedger* ledger) {
  if (record.problem == CsvProblem::kNone) return false;
  ledger->Skip(CsvProblemReason(record.problem), record.line, record.error.ToString());
  return true;
}

Status MissingColumnError(const std::string& label, std::string_view column,
                          const CsvHeader& header, std::string_view hint) {
  return InvalidInput(
      fmt::format("{}: required column '{}' not found; header found: [{}]\nhint: {}", label, column,
                  TerminalSafe(header.Joined()), hint));
}

std::string FieldSample(std::string_view field) {
  constexpr size_t kMaxSampleBytes = 120;
  const std::string_view text = TrimField(field);
  if (text.size() <= kMaxSampleBytes) return std::string(text);
  size_t cut = kMaxSampleBytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return fmt::format("{}... ({} bytes)", text.substr(0, cut), text.size());
}

std::string FieldCountDetail(size_t got, size_t expected) {
  return fmt::format("got {} fields, header has {}", got, expected);
}

Status ParseMappedFile(const std::string& path,
                       const std::function<Status(std::string_view data)>& parse) {
  TS_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  return parse(file.data());
}

bool SpanMicrosField(const CsvRecord& record, int column, const char* name, RowLedger* ledger,
                     int64_t* out) {
  *out = 0;
  if (column == CsvHeader::kAbsent) return true;
  std::string_view raw = record.fields[column];
  std::optional<int64_t> value = ParseMicrosToNanos(raw);
  if (!value) {
    if (!IsMissingValue(raw)) {
      ledger->Note(fmt::format("unparsable {}", name), record.line, FieldSample(raw));
    }
    return true;
  }
  if (!InTimeRange(*value)) {
    ledger->Skip(
        *value < 0 ? fmt::format("negative {}", name) : fmt::format("{} out of range", name),
        record.line, FieldSample(raw));
    return false;
  }
  *out = *value;
  return true;
}

}  // namespace trainscope::formats
