#include "formats/ascend/op_statistic_reader.h"

#include <fmt/format.h>

#include "core/numbers.h"
#include "formats/ascend/csv_common.h"
#include "formats/ascend/csv_specs.h"
#include "formats/csv/csv_spec.h"

namespace trainscope::formats {

Status ParseOpStatistic(std::string_view data, const std::string& file_label,
                        model::RankProfile* profile) {
  namespace col = ascend_csv;
  CsvReader reader(data, CsvReader::ConfiguredMaxRecordBytes());
  CsvRecord record;
  TS_ASSIGN_OR_RETURN(BoundSpec cols,
                      ReadSpecHeader(&reader, &record, file_label, col::kOpStatistic));

  RowLedger ledger(file_label);
  while (reader.Next(&record)) {
    if (!TakeRecord(record, cols.fields(), &ledger)) continue;
    model::OpStatisticRow row;
    // Count and Total Time make the statistic; Min/Avg/Max only describe
    // it, but out of range they cost the row too, as any span column does.
    if (ReadCount(record, cols[col::kOpCount], &ledger, &row.count) != Cell::kValue ||
        ReadMicros(record, cols[col::kOpTotal], &ledger, &row.total_ns) != Cell::kValue ||
        ReadMicros(record, cols[col::kOpMin], &ledger, &row.min_ns) == Cell::kSkipRow ||
        ReadMicros(record, cols[col::kOpAvg], &ledger, &row.avg_ns) == Cell::kSkipRow ||
        ReadMicros(record, cols[col::kOpMax], &ledger, &row.max_ns) == Cell::kSkipRow) {
      continue;
    }
    ReadDecimal(record, cols[col::kOpRatio], &ledger, &row.ratio_pct);
    row.op_type = std::string(ReadText(record, cols[col::kOpType]));
    row.core_type = std::string(ReadText(record, cols[col::kOpCoreType]));
    profile->op_statistic.push_back(std::move(row));
    ledger.Use();
  }
  profile->ledgers.push_back(std::move(ledger));
  return Status::Ok();
}

Status ReadOpStatisticFile(const std::string& path, model::RankProfile* profile) {
  return ParseMappedFile(
      path, [&](std::string_view data) { return ParseOpStatistic(data, path, profile); });
}

}  // namespace trainscope::formats
