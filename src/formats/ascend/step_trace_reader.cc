#include "formats/ascend/step_trace_reader.h"

#include <fmt/format.h>

#include <cstdint>

#include "core/numbers.h"
#include "formats/ascend/csv_common.h"
#include "formats/ascend/csv_specs.h"
#include "formats/csv/csv_spec.h"

namespace trainscope::formats {

Status ParseStepTraceTime(std::string_view data, const std::string& file_label,
                          model::RankProfile* profile) {
  namespace col = ascend_csv;
  CsvReader reader(data, CsvReader::ConfiguredMaxRecordBytes());
  CsvRecord record;
  TS_ASSIGN_OR_RETURN(BoundSpec cols,
                      ReadSpecHeader(&reader, &record, file_label, col::kStepTraceTime));

  RowLedger ledger(file_label);
  while (reader.Next(&record)) {
    if (!TakeRecord(record, cols.fields(), &ledger)) continue;
    model::StepTraceRow row;
    if (ReadInt32(record, cols[col::kStepStep], &ledger, &row.step) == Cell::kSkipRow) continue;
    int32_t device = 0;
    if (ReadInt32(record, cols[col::kStepDevice], &ledger, &device) == Cell::kValue) {
      row.device_id = device;
    }
    // Every other column is a time span (the spec: out of range costs the
    // row, unparsable reads as 0).
    int64_t preparing_ns = 0;
    const bool in_range =
        ReadMicros(record, cols[col::kStepComputing], &ledger, &row.computing_ns) !=
            Cell::kSkipRow &&
        ReadMicros(record, cols[col::kStepCommNotOverlapped], &ledger,
                   &row.communication_not_overlapped_ns) != Cell::kSkipRow &&
        ReadMicros(record, cols[col::kStepOverlapped], &ledger, &row.overlapped_ns) !=
            Cell::kSkipRow &&
        ReadMicros(record, cols[col::kStepCommunication], &ledger, &row.communication_ns) !=
            Cell::kSkipRow &&
        ReadMicros(record, cols[col::kStepFree], &ledger, &row.free_ns) != Cell::kSkipRow &&
        ReadMicros(record, cols[col::kStepStage], &ledger, &row.stage_ns) != Cell::kSkipRow &&
        ReadMicros(record, cols[col::kStepBubble], &ledger, &row.bubble_ns) != Cell::kSkipRow &&
        ReadMicros(record, cols[col::kStepPreparing], &ledger, &preparing_ns) != Cell::kSkipRow;
    if (!in_range) continue;
    if (cols[col::kStepPreparing].present()) row.preparing_ns = preparing_ns;
    profile->step_trace.push_back(row);
    ledger.Use();
  }
  profile->ledgers.push_back(std::move(ledger));
  return Status::Ok();
}

Status ReadStepTraceTimeFile(const std::string& path, model::RankProfile* profile) {
  return ParseMappedFile(
      path, [&](std::string_view data) { return ParseStepTraceTime(data, path, profile); });
}

}  // namespace trainscope::formats
