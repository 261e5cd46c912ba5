#include "formats/ascend/memory_readers.h"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "core/numbers.h"
#include "formats/ascend/csv_common.h"
#include "formats/ascend/csv_specs.h"
#include "formats/csv/csv_spec.h"

namespace trainscope::formats {
namespace {

namespace col = ascend_csv;

// A size cell: the value, or nullopt when empty or noted as unparsable.
std::optional<int64_t> SizeOf(const CsvRecord& record, const BoundColumn& column,
                              RowLedger* ledger) {
  int64_t bytes = 0;
  if (ReadBytes(record, column, ledger, &bytes) == Cell::kValue) return bytes;
  return std::nullopt;
}

StringId InternText(const CsvRecord& record, const BoundColumn& column, StringPool* strings) {
  const std::string_view text = ReadText(record, column);
  return text.empty() ? StringPool::kEmpty : strings->Intern(text);
}

}  // namespace

Status ParseMemoryRecord(std::string_view data, const std::string& file_label,
                         model::RankProfile* profile) {
  CsvReader reader(data, CsvReader::ConfiguredMaxRecordBytes());
  CsvRecord record;
  TS_ASSIGN_OR_RETURN(BoundSpec cols,
                      ReadSpecHeader(&reader, &record, file_label, col::kMemoryRecord));
  RowLedger ledger(file_label);
  std::vector<model::MemoryRecordRow>& rows = profile->memory.records;
  const size_t first = rows.size();
  // Rows are 70-100 bytes: one allocation for the whole file (a 1 GB file
  // would otherwise copy its rows ~25 times while growing; the pages
  // reserved beyond the last row are never touched).
  rows.reserve(first + data.size() / 64);
  // Most rows repeat the previous row's Stream Ptr: intern it once.
  std::string_view last_stream;
  StringId last_stream_id = StringPool::kEmpty;
  while (reader.Next(&record)) {
    if (!TakeRecord(record, cols.fields(), &ledger)) continue;
    model::MemoryRecordRow row;
    if (ReadMicrosInline(record, cols[col::kRecordTimestamp], &ledger, &row.ts_ns) !=
        Cell::kValue) {
      continue;
    }
    row.component = model::MemoryComponentFromName(ReadText(record, cols[col::kRecordComponent]));
    row.allocated_bytes = SizeOf(record, cols[col::kRecordAllocated], &ledger);
    row.reserved_bytes = SizeOf(record, cols[col::kRecordReserved], &ledger);
    row.active_bytes = SizeOf(record, cols[col::kRecordActive], &ledger);
    const std::string_view stream = ReadText(record, cols[col::kRecordStream]);
    if (stream != last_stream) {
      last_stream_id = stream.empty() ? StringPool::kEmpty : profile->strings.Intern(stream);
      last_stream = profile->strings.Get(last_stream_id);
    }
    row.stream = last_stream_id;
    rows.push_back(row);
    ledger.Use();
  }
  const auto by_time = [](const model::MemoryRecordRow& a, const model::MemoryRecordRow& b) {
    return a.ts_ns < b.ts_ns;
  };
  // torch_npu writes the rows in time order: sorting is then a check.
  const auto begin = rows.begin() + static_cast<std::ptrdiff_t>(first);
  if (!std::is_sorted(begin, rows.end(), by_time)) std::stable_sort(begin, rows.end(), by_time);
  profile->memory.has_records = true;
  profile->ledgers.push_back(std::move(ledger));
  return Status::Ok();
}

Status ParseOperatorMemory(std::string_view data, const std::string& file_label,
                           model::RankProfile* profile) {
  CsvReader reader(data, CsvReader::ConfiguredMaxRecordBytes());
  CsvRecord record;
  TS_ASSIGN_OR_RETURN(BoundSpec cols,
                      ReadSpecHeader(&reader, &record, file_label, col::kOperatorMemory));
  RowLedger ledger(file_label);
  while (reader.Next(&record)) {
    if (!TakeRecord(record, cols.fields(), &ledger)) continue;
    model::OperatorMemoryRow row;
    if (ReadBytes(record, cols[col::kOpMemSize], &ledger, &row.size_bytes) != Cell::kValue) {
      continue;
    }
    int64_t ns = 0;
    if (ReadMicros(record, cols[col::kOpMemAllocTime], &ledger, &ns) == Cell::kValue) {
      row.alloc_ns = ns;
    }
    if (ReadMicros(record, cols[col::kOpMemReleaseTime], &ledger, &ns) == Cell::kValue) {
      row.release_ns = ns;
    }
    row.alloc_total_allocated_bytes = SizeOf(record, cols[col::kOpMemAllocAllocated], &ledger);
    row.alloc_total_reserved_bytes = SizeOf(record, cols[col::kOpMemAllocReserved], &ledger);
    row.release_total_allocated_bytes = SizeOf(record, cols[col::kOpMemReleaseAllocated], &ledger);
    row.release_total_reserved_bytes = SizeOf(record, cols[col::kOpMemReleaseReserved], &ledger);
    row.name = InternText(record, cols[col::kOpMemName], &profile->strings);
    row.stream = InternText(record, cols[col::kOpMemStream], &profile->strings);
    profile->memory.operators.push_back(row);
    ledger.Use();
  }
  profile->memory.has_operators = true;
  profile->ledgers.push_back(std::move(ledger));
  return Status::Ok();
}

Status ParseNpuModuleMem(std::string_view data, const std::string& file_label,
                         model::RankProfile* profile) {
  CsvReader reader(data, CsvReader::ConfiguredMaxRecordBytes());
  CsvRecord record;
  TS_ASSIGN_OR_RETURN(BoundSpec cols,
                      ReadSpecHeader(&reader, &record, file_label, col::kNpuModuleMem));
  RowLedger ledger(file_label);
  std::vector<model::ModuleMemoryRow>& rows = profile->memory.modules;
  const size_t first = rows.size();
  const BoundColumn& reserved = cols[col::kModuleReservedMb].present()
                                    ? cols[col::kModuleReservedMb]
                                    : cols[col::kModuleReservedKb];
  while (reader.Next(&record)) {
    if (!TakeRecord(record, cols.fields(), &ledger)) continue;
    model::ModuleMemoryRow row;
    if (ReadMicrosInline(record, cols[col::kModuleTimestamp], &ledger, &row.ts_ns) !=
        Cell::kValue) {
      continue;
    }
    row.reserved_bytes = SizeOf(record, reserved, &ledger);
    // CANN writes -1 when only releases were captured: unknown, not a size.
    if (row.reserved_bytes && *row.reserved_bytes < 0) row.reserved_bytes.reset();
    row.component = InternText(record, cols[col::kModuleComponent], &profile->strings);
    rows.push_back(row);
    ledger.Use();
  }
  std::stable_sort(rows.begin() + static_cast<std::ptrdiff_t>(first), rows.end(),
                   [](const model::ModuleMemoryRow& a, const model::ModuleMemoryRow& b) {
                     return a.ts_ns < b.ts_ns;
                   });
  profile->memory.has_modules = true;
  profile->ledgers.push_back(std::move(ledger));
  return Status::Ok();
}

Status ReadMemoryRecordFile(const std::string& path, model::RankProfile* profile) {
  return ParseMappedFile(
      path, [&](std::string_view data) { return ParseMemoryRecord(data, path, profile); });
}

Status ReadOperatorMemoryFile(const std::string& path, model::RankProfile* profile) {
  return ParseMappedFile(
      path, [&](std::string_view data) { return ParseOperatorMemory(data, path, profile); });
}

Status ReadNpuModuleMemFile(const std::string& path, model::RankProfile* profile) {
  return ParseMappedFile(
      path, [&](std::string_view data) { return ParseNpuModuleMem(data, path, profile); });
}

}  // namespace trainscope::formats
