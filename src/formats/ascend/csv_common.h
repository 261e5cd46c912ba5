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

// A damaged record (NUL byte, over the size limit, unterminated quote) is
// one skipped row with its reason and position; the reader has already
// resynchronised, so the caller just goes on. True when |record| was skipped.
bool SkipDamagedRecord(const CsvRecord& record, RowLedger* ledger);

// InvalidInput for a header without a required column.
Status MissingColumnError(const std::string& label, std::string_view column,
                          const CsvHeader& header, std::string_view hint);

// An optional microsecond column as ns, for a row that is kept only when
// the value is a time span in [0, 2^62) ns: an absent column or a missing
// value gives 0, an unparsable cell 0 and a note (msprof-analyze also turns
// unparsable cells into 0); a value out of range skips the row ("negative
// <name>" / "<name> out of range") and returns false.
bool SpanMicrosField(const CsvRecord& record, int column, const char* name, RowLedger* ledger,
                     int64_t* out);

// A field quoted in a ledger sample: trimmed and cut to 120 bytes (on a
// character boundary) with its full length, so a 16 MiB field does not
// travel into every report that shows the sample.
std::string FieldSample(std::string_view field);

// "got 5 fields, header has 8"
std::string FieldCountDetail(size_t got, size_t expected);

// Maps |path| and runs |parse| over its bytes (the file stays mapped only for
// the call; parsers must copy or intern what they keep).
Status ParseMappedFile(const std::string& path,
                       const std::function<Status(std::string_view data)>& parse);

}  // namespace trainscope::formats
