#include "formats/ascend/csv_common.h"

#include <fmt/format.h>

#include <optional>

#include "core/mapped_file.h"
#include "core/numbers.h"

namespace trainscope::formats {

Result<CsvHeader> ReadCsvHeader(CsvReader* reader, CsvRecord* record, const std::string& label,
                                std::string_view hint) {
  if (!reader->Next(record)) {
    if (const CsvError* error = reader->error()) {
      return InvalidInput(
          fmt::format("{}: header is not CSV text ({})\nhint: {}", label, error->ToString(), hint));
    }
    return InvalidInput(fmt::format("{}: file is empty (no header line)\nhint: {}", label, hint));
  }
  return CsvHeader(record->fields);
}

void AccountCsvError(const CsvReader& reader, const std::string& label, RowLedger* ledger,
                     std::vector<std::string>* warnings) {
  const CsvError* error = reader.error();
  if (error == nullptr) return;
  ledger->Skip("malformed CSV (reading stopped)", error->record_line, error->ToString());
  if (warnings != nullptr) {
    warnings->push_back(
        fmt::format("{}: {}; rows after this point were not read", label, error->ToString()));
  }
}

Status MissingColumnError(const std::string& label, std::string_view column,
                          const CsvHeader& header, std::string_view hint) {
  return InvalidInput(
      fmt::format("{}: required column '{}' not found; header found: [{}]\nhint: {}", label, column,
                  header.Joined(), hint));
}

std::string FieldCountDetail(size_t got, size_t expected) {
  return fmt::format("got {} fields, header has {}", got, expected);
}

Status ParseMappedFile(const std::string& path,
                       const std::function<Status(std::string_view data)>& parse) {
  TS_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  return parse(file.data());
}

int64_t OptionalMicrosField(const CsvRecord& record, int column, const char* name, RowLedger* ledger) {
  if (column == CsvHeader::kAbsent) return 0;
  std::string_view raw = record.fields[column];
  std::optional<int64_t> value = ParseMicrosToNanos(raw);
  if (value) return *value;
  if (!IsMissingValue(raw)) {
    ledger->Note(fmt::format("unparsable {}", name), record.line, std::string(TrimField(raw)));
  }
  return 0;
}

}  // namespace trainscope::formats
