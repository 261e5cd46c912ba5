#include "formats/ascend/operator_details_reader.h"

#include "core/numbers.h"
#include "formats/ascend/csv_common.h"
#include "formats/ascend/csv_specs.h"
#include "formats/csv/csv_spec.h"
#include "formats/trace/chrome_json.h"

namespace trainscope::formats {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// An optional time: unknown (nullopt) when the column is absent, the cell
// N/A or bad (a bad cell is noted by the spec, the call kept).
std::optional<int64_t> OptionalMicros(const CsvRecord& record, const BoundColumn& column,
                                      RowLedger* ledger) {
  int64_t value = 0;
  if (ReadMicros(record, column, ledger, &value) == Cell::kValue) return value;
  return std::nullopt;
}

}  // namespace

std::string NormaliseInputShapes(std::string_view cell) {
  while (!cell.empty() && (cell.front() == '"' || IsSpace(cell.front()))) cell.remove_prefix(1);
  while (!cell.empty() && (cell.back() == '"' || IsSpace(cell.back()))) cell.remove_suffix(1);
  if (cell == "N/A") return {};
  std::string out;
  out.reserve(cell.size());
  for (char c : cell) {
    if (!IsSpace(c)) out.push_back(c);
  }
  return out;
}

Status ParseOperatorDetails(std::string_view data, const std::string& file_label,
                            model::RankProfile* profile) {
  namespace col = ascend_csv;
  CsvReader reader(data, CsvReader::ConfiguredMaxRecordBytes());
  CsvRecord record;
  TS_ASSIGN_OR_RETURN(BoundSpec cols,
                      ReadSpecHeader(&reader, &record, file_label, col::kOperatorDetails));
  RowLedger ledger(file_label);
  StringPool& pool = profile->strings;
  while (reader.Next(&record)) {
    if (!TakeRecord(record, cols.fields(), &ledger)) continue;
    const std::string_view name = ReadText(record, cols[col::kOperatorName]);
    if (IsMissingValue(name)) {
      ledger.Skip(RowIssue::kMissingValue, "Name", record.line, "");
      continue;
    }
    model::OperatorDetailRow row;
    row.name = pool.Intern(name);
    row.input_shapes =
        pool.Intern(NormaliseInputShapes(ReadText(record, cols[col::kOperatorInputShapes])));
    row.source = pool.Intern(trace::UserFrameOf(ReadText(record, cols[col::kOperatorCallStack])));
    row.host_total_ns = OptionalMicros(record, cols[col::kOperatorHostTotal], &ledger);
    row.device_total_ns = OptionalMicros(record, cols[col::kOperatorDeviceTotal], &ledger);
    profile->operator_details.push_back(row);
    ledger.Use();
  }
  profile->ledgers.push_back(std::move(ledger));
  return Status::Ok();
}

Status ReadOperatorDetailsFile(const std::string& path, model::RankProfile* profile) {
  return ParseMappedFile(
      path, [&](std::string_view data) { return ParseOperatorDetails(data, path, profile); });
}

}  // namespace trainscope::formats
