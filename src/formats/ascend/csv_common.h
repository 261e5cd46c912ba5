// Plumbing shared by the Ascend CSV readers: opening a file, reading its
// header, and accounting a CSV syntax error in the file's RowLedger.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/row_ledger.h"
#include "core/status.h"
#include "formats/csv/csv_header.h"
#include "formats/csv/csv_reader.h"

namespace trainscope::formats {

// Reads the first record as the header. InvalidInput (naming |label|) for an
// empty file or a header that is not CSV text.
// |hint| says what the file should look like.
Result<CsvHeader> ReadCsvHeader(CsvReader* reader, CsvRecord* record, const std::string& label,
                                std::string_view hint);

// A syntax error stops the reader; the record it was in is lost and counted
// as one skipped row, and a warning tells how far the file was read, so the
// ledger invariant holds and the user knows data is missing.
void AccountCsvError(const CsvReader& reader, const std::string& label, RowLedger* ledger,
                     std::vector<std::string>* warnings);

// InvalidInput for a header without a required column.
Status MissingColumnError(const std::string& label, std::string_view column,
                          const CsvHeader& header, std::string_view hint);

// An optional microsecond column as ns: an absent column or a missing value
// (N/A, empty) gives 0; an unparsable cell gives 0 and a note in |ledger|
// (msprof-analyze also turns unparsable cells into 0).
int64_t OptionalMicrosField(const CsvRecord& record, int column, const char* name, RowLedger* ledger);

// "got 5 fields, header has 8"
std::string FieldCountDetail(size_t got, size_t expected);

// Maps |path| and runs |parse| over its bytes (the file stays mapped only for
// the call; parsers must copy or intern what they keep).
Status ParseMappedFile(const std::string& path,
                       const std::function<Status(std::string_view data)>& parse);

}  // namespace trainscope::formats
