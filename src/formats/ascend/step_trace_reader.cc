#include "formats/ascend/step_trace_reader.h"

#include <fmt/format.h>

#include <cstdint>

#include "core/numbers.h"
#include "formats/ascend/csv_common.h"

namespace trainscope::formats {
namespace {

constexpr std::string_view kHint =
    "step_trace_time.csv needs at least Step, Computing and Communication columns (written by "
    "torch_npu into ASCEND_PROFILER_OUTPUT)";

}  // namespace

Status ParseStepTraceTime(std::string_view data, const std::string& file_label,
                          model::RankProfile* profile) {
  CsvReader reader(data, CsvReader::ConfiguredMaxRecordBytes());
  CsvRecord record;
  TS_ASSIGN_OR_RETURN(CsvHeader header, ReadCsvHeader(&reader, &record, file_label, kHint));
  const int device = header.Find("Device_id");
  const int step = header.Find("Step");
  const int computing = header.Find("Computing");
  const int comm_not_overlapped = header.Find("Communication(Not Overlapped)");
  const int overlapped = header.Find("Overlapped");
  const int communication = header.Find("Communication");
  const int free_col = header.Find("Free");
  const int stage = header.Find("Stage");
  const int bubble = header.Find("Bubble");
  const int preparing = header.Find("Preparing");
  if (step == CsvHeader::kAbsent) return MissingColumnError(file_label, "Step", header, kHint);
  if (computing == CsvHeader::kAbsent) {
    return MissingColumnError(file_label, "Computing", header, kHint);
  }
  if (communication == CsvHeader::kAbsent) {
    return MissingColumnError(file_label, "Communication", header, kHint);
  }

  RowLedger ledger(file_label);
  while (reader.Next(&record)) {
    if (SkipDamagedRecord(record, &ledger)) continue;
    if (record.fields.size() != header.size()) {
      ledger.Skip("wrong field count", record.line,
                  FieldCountDetail(record.fields.size(), header.size()));
      continue;
    }
    model::StepTraceRow row;
    std::string_view step_raw = record.fields[step];
    if (!IsMissingValue(step_raw)) {
      std::optional<int64_t> value = ParseInt64(step_raw);
      if (!value || *value < INT32_MIN || *value > INT32_MAX) {
        ledger.Skip("unparsable Step", record.line, FieldSample(step_raw));
        continue;
      }
      row.step = static_cast<int32_t>(*value);
    }
    if (device != CsvHeader::kAbsent) {
      std::optional<int64_t> value = ParseInt64(record.fields[device]);
      if (value && *value >= INT32_MIN && *value <= INT32_MAX) {
        row.device_id = static_cast<int32_t>(*value);
      }
    }
    // Every column is a time span: one out of [0, 2^62) ns costs the row
    // (a negative or overflowing span would poison the step budgets).
    int64_t preparing_ns = 0;
    const bool in_range =
        SpanMicrosField(record, computing, "Computing", &ledger, &row.computing_ns) &&
        SpanMicrosField(record, comm_not_overlapped, "Communication(Not Overlapped)", &ledger,
                        &row.communication_not_overlapped_ns) &&
        SpanMicrosField(record, overlapped, "Overlapped", &ledger, &row.overlapped_ns) &&
        SpanMicrosField(record, communication, "Communication", &ledger, &row.communication_ns) &&
        SpanMicrosField(record, free_col, "Free", &ledger, &row.free_ns) &&
        SpanMicrosField(record, stage, "Stage", &ledger, &row.stage_ns) &&
        SpanMicrosField(record, bubble, "Bubble", &ledger, &row.bubble_ns) &&
        SpanMicrosField(record, preparing, "Preparing", &ledger, &preparing_ns);
    if (!in_range) continue;
    if (preparing != CsvHeader::kAbsent) row.preparing_ns = preparing_ns;
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
