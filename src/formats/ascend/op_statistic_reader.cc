#include "formats/ascend/op_statistic_reader.h"

#include <fmt/format.h>

#include "core/numbers.h"
#include "formats/ascend/csv_common.h"

namespace trainscope::formats {
namespace {

constexpr std::string_view kHint =
    "op_statistic.csv needs OP Type, Count and Total Time(us) (CANN op_statistic copied by "
    "torch_npu at Level1/Level2)";

}  // namespace

Status ParseOpStatistic(std::string_view data, const std::string& file_label,
                        model::RankProfile* profile) {
  CsvReader reader(data, CsvReader::ConfiguredMaxRecordBytes());
  CsvRecord record;
  TS_ASSIGN_OR_RETURN(CsvHeader header, ReadCsvHeader(&reader, &record, file_label, kHint));
  const int op_type = header.Find({"OP Type", "Type"});
  const int core_type = header.Find({"Core Type", "Task Type"});
  const int count = header.Find("Count");
  const int total = header.Find("Total Time(us)");
  const int min_col = header.Find("Min Time(us)");
  const int avg = header.Find("Avg Time(us)");
  const int max_col = header.Find("Max Time(us)");
  const int ratio = header.Find("Ratio(%)");
  if (op_type == CsvHeader::kAbsent)
    return MissingColumnError(file_label, "OP Type", header, kHint);
  if (count == CsvHeader::kAbsent) return MissingColumnError(file_label, "Count", header, kHint);
  if (total == CsvHeader::kAbsent) {
    return MissingColumnError(file_label, "Total Time(us)", header, kHint);
  }

  RowLedger ledger(file_label);
  while (reader.Next(&record)) {
    if (SkipDamagedRecord(record, &ledger)) continue;
    if (record.fields.size() != header.size()) {
      ledger.Skip("wrong field count", record.line,
                  FieldCountDetail(record.fields.size(), header.size()));
      continue;
    }
    model::OpStatisticRow row;
    row.op_type = std::string(TrimField(record.fields[op_type]));
    if (core_type != CsvHeader::kAbsent)
      row.core_type = std::string(TrimField(record.fields[core_type]));
    std::optional<int64_t> count_value = ParseInt64(record.fields[count]);
    if (!count_value) {
      ledger.Skip("unparsable Count", record.line, FieldSample(record.fields[count]));
      continue;
    }
    std::optional<int64_t> total_value = ParseMicrosToNanos(record.fields[total]);
    if (!total_value) {
      ledger.Skip("unparsable Total Time", record.line, FieldSample(record.fields[total]));
      continue;
    }
    // A count or total outside [0, 2^62) is not a statistic of a real run
    // and would overflow the per-type sums: the row is skipped.
    if (!InTimeRange(*count_value)) {
      ledger.Skip(*count_value < 0 ? "negative Count" : "Count out of range", record.line,
                  FieldSample(record.fields[count]));
      continue;
    }
    if (!InTimeRange(*total_value)) {
      ledger.Skip(*total_value < 0 ? "negative Total Time" : "Total Time out of range", record.line,
                  FieldSample(record.fields[total]));
      continue;
    }
    row.count = *count_value;
    row.total_ns = *total_value;
    // Min/Avg/Max only describe the row: out of range they cost it too, as
    // any span column does.
    if (!SpanMicrosField(record, min_col, "Min Time", &ledger, &row.min_ns) ||
        !SpanMicrosField(record, avg, "Avg Time", &ledger, &row.avg_ns) ||
        !SpanMicrosField(record, max_col, "Max Time", &ledger, &row.max_ns)) {
      continue;
    }
    if (ratio != CsvHeader::kAbsent) {
      std::optional<double> value = ParseDouble(record.fields[ratio]);
      if (value) {
        row.ratio_pct = *value;
      } else if (!IsMissingValue(record.fields[ratio])) {
        ledger.Note("unparsable Ratio", record.line, FieldSample(record.fields[ratio]));
      }
    }
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
