#include "formats/ascend/api_statistic_reader.h"

#include "formats/ascend/csv_common.h"
#include "formats/ascend/csv_specs.h"
#include "formats/csv/csv_spec.h"

namespace trainscope::formats {
namespace {

// An optional time: unknown (nullopt) when the column is absent or the
// cell N/A; kSkipRow when the spec makes a bad value cost the row.
Cell ReadOptionalMicros(const CsvRecord& record, const BoundColumn& column, RowLedger* ledger,
                        std::optional<int64_t>* out) {
  int64_t value = 0;
  const Cell cell = ReadMicros(record, column, ledger, &value);
  if (cell == Cell::kValue) *out = value;
  return cell;
}

}  // namespace

Status ParseApiStatistic(std::string_view data, const std::string& file_label,
                         model::RankProfile* profile) {
  namespace col = ascend_csv;
  CsvReader reader(data, CsvReader::ConfiguredMaxRecordBytes());
  CsvRecord record;
  TS_ASSIGN_OR_RETURN(BoundSpec cols,
                      ReadSpecHeader(&reader, &record, file_label, col::kApiStatistic));
  profile->has_api_statistic = true;
  RowLedger ledger(file_label);
  while (reader.Next(&record)) {
    if (!TakeRecord(record, cols.fields(), &ledger)) continue;
    model::ApiStatisticRow row;
    // Count and Time make the statistic; Avg/Min/Max only describe it, but
    // out of range they cost the row too, as in op_statistic.csv.
    if (ReadCount(record, cols[col::kApiCount], &ledger, &row.count) != Cell::kValue ||
        ReadMicros(record, cols[col::kApiTime], &ledger, &row.total_ns) != Cell::kValue ||
        ReadOptionalMicros(record, cols[col::kApiAvg], &ledger, &row.avg_ns) == Cell::kSkipRow ||
        ReadOptionalMicros(record, cols[col::kApiMin], &ledger, &row.min_ns) == Cell::kSkipRow ||
        ReadOptionalMicros(record, cols[col::kApiMax], &ledger, &row.max_ns) == Cell::kSkipRow) {
      continue;
    }
    row.level = std::string(ReadText(record, cols[col::kApiLevel]));
    row.api_name = std::string(ReadText(record, cols[col::kApiName]));
    profile->api_statistic.push_back(std::move(row));
    ledger.Use();
  }
  profile->ledgers.push_back(std::move(ledger));
  return Status::Ok();
}

Status ReadApiStatisticFile(const std::string& path, model::RankProfile* profile) {
  return ParseMappedFile(
      path, [&](std::string_view data) { return ParseApiStatistic(data, path, profile); });
}

}  // namespace trainscope::formats
