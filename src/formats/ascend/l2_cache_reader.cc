#include "formats/ascend/l2_cache_reader.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "formats/ascend/csv_common.h"
#include "formats/ascend/csv_specs.h"
#include "formats/csv/csv_spec.h"

namespace trainscope::formats {
namespace {

// A rate cell: a fraction in [0, 1], or unknown (N/A, empty, absent column,
// unparsable: noted by ReadDecimal; outside [0, 1]: noted here).
std::optional<double> ReadRate(const CsvRecord& record, const BoundColumn& column,
                               RowLedger* ledger) {
  double value = 0;
  if (ReadDecimal(record, column, ledger, &value) != Cell::kValue) return std::nullopt;
  if (!std::isfinite(value) || value < 0 || value > 1) {
    ledger->Note(RowIssue::kFieldOutOfRange, column.spec->key, record.line,
                 fmt::format("{} is not a fraction in [0, 1]: read as unknown", value));
    return std::nullopt;
  }
  return value;
}

}  // namespace

Status ParseL2Cache(std::string_view data, const std::string& file_label,
                    model::RankProfile* profile) {
  namespace col = ascend_csv;
  CsvReader reader(data, CsvReader::ConfiguredMaxRecordBytes());
  CsvRecord record;
  TS_ASSIGN_OR_RETURN(BoundSpec cols, ReadSpecHeader(&reader, &record, file_label, col::kL2Cache));
  profile->has_l2_cache = true;

  RowLedger ledger(file_label);
  while (reader.Next(&record)) {
    if (!TakeRecord(record, cols.fields(), &ledger)) continue;
    model::L2CacheRow row;
    int32_t id = 0;
    if (ReadInt32(record, cols[col::kL2Stream], &ledger, &id) == Cell::kValue) row.stream_id = id;
    if (ReadInt32(record, cols[col::kL2Task], &ledger, &id) == Cell::kValue) row.task_id = id;
    row.hit_rate = ReadRate(record, cols[col::kL2HitRate], &ledger);
    row.victim_rate = ReadRate(record, cols[col::kL2VictimRate], &ledger);
    row.op_name = profile->strings.Intern(ReadText(record, cols[col::kL2OpName]));
    profile->l2_cache.push_back(row);
    ledger.Use();
  }
  profile->ledgers.push_back(std::move(ledger));
  return Status::Ok();
}

Status ReadL2CacheFile(const std::string& path, model::RankProfile* profile) {
  return ParseMappedFile(path,
                         [&](std::string_view data) { return ParseL2Cache(data, path, profile); });
}

}  // namespace trainscope::formats
