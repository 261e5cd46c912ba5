// The memory tables of the export (profile_memory=True), into
// RankProfile::memory as the CSV readers fill it (formats/ascend/
// memory_readers.h), sizes in bytes and times in ns already: MEMORY_RECORD
// (memory_record.csv), OP_MEMORY (operator_memory.csv), NPU_MODULE_MEM
// (npu_module_mem.csv; moduleId names from ENUM_MODULE) and NPU_MEM (the
// driver's view of the process: type "app", as memory_record.csv's APP rows;
// Total Reserved = hbm + ddr). A table the export lacks is no error.
#include <algorithm>
#include <cmath>
#include <map>

#include "core/numbers.h"
#include "core/rule_file.h"
#include "formats/ascend_db/db_readers.h"

namespace trainscope::formats::ascend_db {
namespace {

// A size cell: an integer, or a REAL rounded (NUMERIC columns may hold
// either); unknown when NULL, not a number or beyond int64.
std::optional<int64_t> SizeCell(const SqliteStatement& stmt, int column) {
  if (const std::optional<int64_t> v = stmt.Int64(column)) return v;
  const std::optional<double> d = stmt.Double(column);  // NUMERIC columns may hold REAL
  if (!d || !std::isfinite(*d) || std::fabs(*d) > 9.0e18) return std::nullopt;
  return static_cast<int64_t>(std::llround(*d));
}

// A timestamp cell: nullopt (and a skip on |ledger|) when missing or out of range.
std::optional<int64_t> TimeCell(const SqliteStatement& stmt, int column, std::string_view name,
                                RowLedger* ledger, int64_t line) {
  const std::optional<int64_t> ts = stmt.Int64(column);
  if (!ts) {
    ledger->Skip(stmt.IsNull(column) ? RowIssue::kMissingValue : RowIssue::kUnparsableValue, name,
                 line, std::string(stmt.Text(column)));
    return std::nullopt;
  }
  if (!InTimeRange(*ts)) {
    ledger->Skip(RowIssue::kValueOutOfRange, name, line, std::to_string(*ts));
    return std::nullopt;
  }
  return ts;
}

StringId StreamOf(const SqliteStatement& stmt, int column, StringPool& pool) {
  return stmt.IsNull(column) ? StringPool::kEmpty : pool.Intern(stmt.Text(column));
}

template <class Row>
void SortByTime(std::vector<Row>* rows) {
  std::stable_sort(rows->begin(), rows->end(),
                   [](const Row& a, const Row& b) { return a.ts_ns < b.ts_ns; });
}

Status ReadMemoryRecordTable(const DbContext& ctx) {
  const SqliteDb& db = *ctx.db;
  static constexpr DbColumn kColumns[] = {{"component", true},       {"timestamp", true},
                                          {"totalAllocated", false}, {"totalReserved", false},
                                          {"totalActive", false},    {"streamPtr", false}};
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt, SelectFrom(db, "MEMORY_RECORD", "m", kColumns));
  RowLedger ledger(db.path() + ":MEMORY_RECORD");
  model::MemoryData& memory = ctx.profile->memory;
  memory.has_records = true;
  memory.records_from = "MEMORY_RECORD table";
  TS_RETURN_IF_ERROR(ForEachRow(stmt, ledger, [&](int64_t line) {
    const std::optional<int64_t> ts = TimeCell(stmt, 1, "timestamp", &ledger, line);
    if (!ts) return;
    model::MemoryRecordRow row;
    row.ts_ns = *ts;
    row.component = model::MemoryComponentFromName(
        ctx.strings->Text(stmt.Int64(0), &ledger, "component", line));
    row.allocated_bytes = SizeCell(stmt, 2);
    row.reserved_bytes = SizeCell(stmt, 3);
    row.active_bytes = SizeCell(stmt, 4);
    row.stream = StreamOf(stmt, 5, ctx.profile->strings);
    memory.records.push_back(row);
    ledger.Use();
  }));
  ctx.profile->ledgers.push_back(std::move(ledger));
  return Status::Ok();
}

Status ReadOpMemoryTable(const DbContext& ctx) {
  const SqliteDb& db = *ctx.db;
  static constexpr DbColumn kColumns[] = {{"name", true},
                                          {"size", true},
                                          {"allocationTime", false},
                                          {"releaseTime", false},
                                          {"allocationTotalAllocated", false},
                                          {"allocationTotalReserved", false},
                                          {"releaseTotalAllocated", false},
                                          {"releaseTotalReserved", false},
                                          {"streamPtr", false}};
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt, SelectFrom(db, "OP_MEMORY", "o", kColumns));
  RowLedger ledger(db.path() + ":OP_MEMORY");
  model::MemoryData& memory = ctx.profile->memory;
  memory.has_operators = true;
  auto time_or_unknown = [&](int column) -> std::optional<int64_t> {
    const std::optional<int64_t> ts = stmt.Int64(column);
    return ts && InTimeRange(*ts) ? ts : std::nullopt;
  };
  IdCache names;
  TS_RETURN_IF_ERROR(ForEachRow(stmt, ledger, [&](int64_t line) {
    const std::optional<int64_t> size = SizeCell(stmt, 1);
    if (!size) {
      ledger.Skip(stmt.IsNull(1) ? RowIssue::kMissingValue : RowIssue::kUnparsableValue, "size",
                  line, std::string(stmt.Text(1)));
      return;
    }
    model::OperatorMemoryRow row;
    row.name = ctx.strings->Intern(stmt.Int64(0), &ledger, "name", line, &names);
    row.size_bytes = *size;
    row.alloc_ns = time_or_unknown(2);
    row.release_ns = time_or_unknown(3);
    row.alloc_total_allocated_bytes = SizeCell(stmt, 4);
    row.alloc_total_reserved_bytes = SizeCell(stmt, 5);
    row.release_total_allocated_bytes = SizeCell(stmt, 6);
    row.release_total_reserved_bytes = SizeCell(stmt, 7);
    row.stream = StreamOf(stmt, 8, ctx.profile->strings);
    memory.operators.push_back(row);
    ledger.Use();
  }));
  ctx.profile->ledgers.push_back(std::move(ledger));
  return Status::Ok();
}

// ENUM_MODULE: moduleId -> the component's name (SLOG, HCCL, APP, ...).
Result<std::map<int64_t, std::string>> ModuleNames(const SqliteDb& db) {
  std::map<int64_t, std::string> names;
  TS_RETURN_IF_ERROR(ReadEnumTable(db, "ENUM_MODULE", &names));
  return names;
}

// NPU_MODULE_MEM: one sample per component; -1 ("only releases captured")
// and a moduleId ENUM_MODULE lacks (named by its number) as the CSV reader.
Status ReadNpuModuleMemTable(const DbContext& ctx) {
  const SqliteDb& db = *ctx.db;
  TS_ASSIGN_OR_RETURN(auto names, ModuleNames(db));
  static constexpr DbColumn kColumns[] = {
      {"moduleId", true}, {"timestampNs", true}, {"totalReserved", true}};
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt, SelectFrom(db, "NPU_MODULE_MEM", "n", kColumns));
  RowLedger ledger(db.path() + ":NPU_MODULE_MEM");
  model::MemoryData& memory = ctx.profile->memory;
  memory.has_modules = true;
  TS_RETURN_IF_ERROR(ForEachRow(stmt, ledger, [&](int64_t line) {
    const std::optional<int64_t> id = stmt.Int64(0);
    if (!id) {
      ledger.Skip(stmt.IsNull(0) ? RowIssue::kMissingValue : RowIssue::kUnparsableValue, "moduleId",
                  line, std::string(stmt.Text(0)));
      return;
    }
    const std::optional<int64_t> ts = TimeCell(stmt, 1, "timestampNs", &ledger, line);
    if (!ts) return;
    model::ModuleMemoryRow row;
    const auto name = names.find(*id);
    row.component =
        ctx.profile->strings.Intern(name != names.end() ? name->second : std::to_string(*id));
    row.ts_ns = *ts;
    row.reserved_bytes = SizeCell(stmt, 2);
    if (row.reserved_bytes && *row.reserved_bytes < 0) row.reserved_bytes.reset();
    memory.modules.push_back(row);
    ledger.Use();
  }));
  ctx.profile->ledgers.push_back(std::move(ledger));
  return Status::Ok();
}

// NPU_MEM: the process as the driver sees it ("app"; hbm + ddr bytes) ->
// APP rows of the allocator samples, as memory_record.csv has them. Other
// types are the whole device's, not the process's: counted, not used.
Status ReadNpuMemTable(const DbContext& ctx) {
  const SqliteDb& db = *ctx.db;
  static constexpr DbColumn kColumns[] = {
      {"type", true}, {"ddr", false}, {"hbm", false}, {"timestampNs", true}};
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt, SelectFrom(db, "NPU_MEM", "n", kColumns));
  RowLedger ledger(db.path() + ":NPU_MEM");
  TS_RETURN_IF_ERROR(ForEachRow(stmt, ledger, [&](int64_t line) {
    const std::string type = AsciiLower(ctx.strings->Text(stmt.Int64(0), &ledger, "type", line));
    if (type != "app") {
      ledger.Skip(RowIssue::kDeviceWideMemory, "type", line, type);
      return;
    }
    const std::optional<int64_t> ts = TimeCell(stmt, 3, "timestampNs", &ledger, line);
    if (!ts) return;
    const std::optional<int64_t> ddr = SizeCell(stmt, 1);
    const std::optional<int64_t> hbm = SizeCell(stmt, 2);
    model::MemoryRecordRow row;
    row.ts_ns = *ts;
    row.component = model::MemoryComponent::kApp;
    if (ddr || hbm) row.reserved_bytes = ddr.value_or(0) + hbm.value_or(0);
    ctx.profile->memory.records.push_back(row);
    ledger.Use();
  }));
  model::MemoryData& memory = ctx.profile->memory;
  if (ledger.rows_used() > 0) {
    memory.records_from = memory.has_records ? "MEMORY_RECORD + NPU_MEM tables" : "NPU_MEM table";
  }
  ctx.profile->ledgers.push_back(std::move(ledger));
  return Status::Ok();
}

// NPU_INFO: the chip's name (Ascend910B...), for the device memory table.
Status ReadNpuInfo(const SqliteDb& db, int32_t device, model::RankProfile* profile) {
  TS_ASSIGN_OR_RETURN(bool present, db.HasTable("NPU_INFO"));
  if (!present) return Status::Ok();
  static constexpr DbColumn kColumns[] = {{"id", true}, {"name", true}};
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt, SelectFrom(db, "NPU_INFO", "n", kColumns));
  for (;;) {
    TS_ASSIGN_OR_RETURN(bool more, stmt.Step());
    if (!more) break;
    const std::optional<int64_t> id = stmt.Int64(0);
    if (profile->info.device_name.empty() || (id && *id == device)) {
      profile->info.device_name = std::string(stmt.Text(1));
    }
  }
  return Status::Ok();
}

}  // namespace

Status ReadMemoryTables(const DbContext& ctx) {
  const SqliteDb& db = *ctx.db;
  struct Table {
    std::string_view name;
    Status (*read)(const DbContext&);
  };
  static constexpr Table kTables[] = {{"MEMORY_RECORD", ReadMemoryRecordTable},
                                      {"NPU_MEM", ReadNpuMemTable},
                                      {"OP_MEMORY", ReadOpMemoryTable},
                                      {"NPU_MODULE_MEM", ReadNpuModuleMemTable}};
  for (const Table& table : kTables) {
    TS_ASSIGN_OR_RETURN(bool present, db.HasTable(table.name));
    if (present) TS_RETURN_IF_ERROR(table.read(ctx));
  }
  model::MemoryData& memory = ctx.profile->memory;
  SortByTime(&memory.records);
  SortByTime(&memory.modules);
  return ReadNpuInfo(db, ctx.device, ctx.profile);
}

}  // namespace trainscope::formats::ascend_db
