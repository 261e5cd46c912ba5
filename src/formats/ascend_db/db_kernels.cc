// The kernels of the rank database: TASK joined with COMPUTE_TASK_INFO (one
// kernel per compute task), TASK_PMU_INFO (the pipe ratios) and
// COMMUNICATION_TASK_INFO (HCCL's per-link tasks, counted as skipped).
#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "core/numbers.h"
#include "formats/ascend/kernel_details_reader.h"
#include "formats/ascend_db/db_readers.h"
#include "formats/ascend_db/db_tiled_scan.h"

namespace trainscope::formats::ascend_db {
namespace {

// A cell without the quotes torch_npu wraps shapes in; "N/A" as "".
std::string_view Unquoted(std::string_view text) {
  while (!text.empty() && text.front() == '"') text.remove_prefix(1);
  while (!text.empty() && text.back() == '"') text.remove_suffix(1);
  return text == "N/A" ? std::string_view() : text;
}

// The globalTaskIds of COMMUNICATION_TASK_INFO (HCCL's per-link tasks of a
// communication op): TASK rows the op already counts.
Result<std::unordered_set<int64_t>> CommunicationTaskIds(const SqliteDb& db) {
  std::unordered_set<int64_t> ids;
  TS_ASSIGN_OR_RETURN(bool present, db.HasTable("COMMUNICATION_TASK_INFO"));
  if (!present) return ids;
  static constexpr DbColumn kColumns[] = {{"globalTaskId", true}};
  TS_ASSIGN_OR_RETURN(std::string list, SelectList(db, "COMMUNICATION_TASK_INFO", "m", kColumns));
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt,
                      db.Prepare("SELECT DISTINCT " + list + " FROM COMMUNICATION_TASK_INFO m",
                                 "COMMUNICATION_TASK_INFO"));
  for (;;) {
    TS_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    if (std::optional<int64_t> id = stmt.Int64(0)) ids.insert(*id);
  }
  return ids;
}

// Per string id, the pooled id of what a kernel row keeps of it.
struct KernelCaches {
  IdCache names, op_types, derived_op_types, cores, shapes, dtypes;
};

// Name, op type (derived from the name where COMPUTE_TASK_INFO has none),
// accelerator core and kind of a TASK + COMPUTE_TASK_INFO row.
template <typename Row>
void FillKernelStrings(const Row& stmt, int64_t line, StringTable* strings, KernelCaches* caches,
                       RowLedger* ledger, StringPool& pool, model::DeviceEvent* row) {
  const std::optional<int64_t> name_id = stmt.Int64(7);
  row->name = strings->Intern(name_id, ledger, "name", line, &caches->names);
  const StringId op_type =
      strings->Intern(stmt.Int64(8), ledger, "opType", line, &caches->op_types);
  row->op_type_derived = IsMissingValue(pool.Get(op_type));
  row->op_type = op_type;
  if (row->op_type_derived) {
    const StringId* derived = name_id ? caches->derived_op_types.Find(*name_id) : nullptr;
    if (derived != nullptr) {
      row->op_type = *derived;
    } else {
      row->op_type = pool.Intern(DeriveOpTypeFromName(pool.Get(row->name)));
      if (name_id) caches->derived_op_types.Put(*name_id, row->op_type);
    }
  }
  row->accelerator = strings->Intern(stmt.Int64(9), ledger, "taskType", line, &caches->cores);
  const std::string_view core = pool.Get(row->accelerator);
  row->kind = core == "HCCL" || core == "COMMUNICATION" || pool.Get(row->name).starts_with("hcom_")
                  ? model::ActivityKind::kCommunication
                  : model::ActivityKind::kCompute;
}

// One reservation for TASK's and COMMUNICATION_OP's rows (an upper bound
// of the events); TASK's count (0 when unknown).
Result<int64_t> ReserveRows(const SqliteDb& db, model::DeviceEvents* events) {
  TS_ASSIGN_OR_RETURN(bool has_ops, db.HasTable("COMMUNICATION_OP"));
  TS_ASSIGN_OR_RETURN(SqliteStatement count,
                      db.Prepare(has_ops ? "SELECT (SELECT count(*) FROM TASK), (SELECT count(*) "
                                           "FROM COMMUNICATION_OP)"
                                         : "SELECT count(*), 0 FROM TASK",
                                 "TASK"));
  TS_ASSIGN_OR_RETURN(bool row, count.Step());
  const int64_t tasks = row ? count.Int64(0).value_or(0) : 0;
  const int64_t rows = tasks + (row ? count.Int64(1).value_or(0) : 0);
  if (rows > 0 && rows < (int64_t{1} << 32)) {
    events->Reserve(events->size() + static_cast<size_t>(rows));
  }
  return tasks;
}

// TASK_PMU_INFO (aic_metrics=PipeUtilization): one row per task and
// metric. The rows of the three ratios kernel_details.csv's PMU columns
// give the pipe-bound finding (aic_mac_ratio, aic_mte2_ratio,
// aiv_vec_ratio) are selected, per globalTaskId; the other metrics are not
// read. A value that is not a number is noted and stays unknown (NaN).
Result<std::unordered_map<int64_t, model::PmuMetrics>> ReadTaskPmu(const DbContext& ctx) {
  std::unordered_map<int64_t, model::PmuMetrics> pmu;
  const SqliteDb& db = *ctx.db;
  TS_ASSIGN_OR_RETURN(bool present, db.HasTable("TASK_PMU_INFO"));
  if (!present) return pmu;
  static constexpr DbColumn kColumns[] = {{"globalTaskId", true}, {"name", true}, {"value", true}};
  TS_ASSIGN_OR_RETURN(std::string list, SelectList(db, "TASK_PMU_INFO", "p", kColumns));
  TS_ASSIGN_OR_RETURN(
      SqliteStatement stmt,
      db.Prepare("SELECT " + list +
                     " FROM TASK_PMU_INFO p WHERE p.name IN (SELECT id FROM STRING_IDS WHERE value "
                     "IN ('aic_mac_ratio', 'aic_mte2_ratio', 'aiv_vec_ratio'))",
                 "TASK_PMU_INFO"));
  RowLedger ledger(db.path() + ":TASK_PMU_INFO");
  TS_RETURN_IF_ERROR(ForEachRow(stmt, ledger, [&](int64_t line) {
    const std::optional<int64_t> task = stmt.Int64(0);
    if (!task) {
      ledger.Skip(RowIssue::kMissingValue, "globalTaskId", line, "");
      return;
    }
    const std::string_view name = ctx.strings->Text(stmt.Int64(1), &ledger, "name", line);
    const std::optional<double> value = stmt.Double(2);
    float ratio = NAN;
    if (value && std::isfinite(*value)) {
      ratio = static_cast<float>(*value);
    } else {
      ledger.Note(RowIssue::kUnparsableField, "value", line, std::string(stmt.Text(2)));
    }
    model::PmuMetrics& metrics = pmu[*task];
    if (name == "aic_mac_ratio") metrics.aic_mac_ratio = ratio;
    if (name == "aic_mte2_ratio") metrics.aic_mte2_ratio = ratio;
    if (name == "aiv_vec_ratio") metrics.aiv_vec_ratio = ratio;
    ledger.Use();
  }));
  ctx.profile->ledgers.push_back(std::move(ledger));
  return pmu;
}

}  // namespace

// TASK LEFT JOIN COMPUTE_TASK_INFO: one kernel per compute task, with the
// communication ops of |ops| (sorted by start) merged in before the first
// task that starts after them. The rows are decoded on options.threads
// connections (db_tiled_scan.h) and turned into events here, in TASK's
// order.
Status ReadComputeTasks(const DbContext& ctx, const std::vector<model::DeviceEvent>& ops,
                        const DbReadOptions& options) {
  static constexpr DbColumn kTask[] = {{"startNs", true},      {"endNs", true},
                                       {"deviceId", false},    {"streamId", false},
                                       {"globalTaskId", true}, {"taskType", false}};
  static constexpr DbColumn kCompute[] = {{"globalTaskId", true},    {"name", true},
                                          {"opType", false},         {"taskType", false},
                                          {"blockDim", false},       {"inputShapes", false},
                                          {"inputDataTypes", false}, {"waitNs", false},
                                          {"outputShapes", false},   {"outputDataTypes", false}};
  const SqliteDb& db = *ctx.db;
  TS_ASSIGN_OR_RETURN(std::string task_list, SelectList(db, "TASK", "t", kTask));
  TS_ASSIGN_OR_RETURN(std::string compute_list, SelectList(db, "COMPUTE_TASK_INFO", "c", kCompute));
  // The host op link (column 16): CONNECTION_IDS.connectionId, kept as the
  // row's correlation until ReadHostOps resolves it.
  static constexpr DbColumn kLink[] = {{"connectionId", false}};
  TS_ASSIGN_OR_RETURN(std::string link_list, SelectList(db, "TASK", "t", kLink));
  TS_ASSIGN_OR_RETURN(std::unordered_set<int64_t> comm_tasks, CommunicationTaskIds(db));
  RowLedger ledger(db.path() + ":TASK");
  model::DeviceEvents& events = ctx.profile->device_events;
  TS_ASSIGN_OR_RETURN(const int64_t task_rows, ReserveRows(db, &events));
  constexpr size_t kColumnCount = 17;
  const std::string select = "SELECT " + task_list + ", " + compute_list + ", " + link_list +
                             " FROM TASK t NOT INDEXED LEFT JOIN COMPUTE_TASK_INFO c ON "
                             "c.globalTaskId = t.globalTaskId";
  const std::unique_ptr<TiledScan> scan =
      TiledScan::Start(db, select, "TASK", "t.rowid", kColumnCount, task_rows, options);
  StringTable& strings = *ctx.strings;
  TS_ASSIGN_OR_RETURN(auto pmu, ReadTaskPmu(ctx));
  KernelCaches caches;
  model::DeviceEvent row;
  size_t next_op = 0;
  // |stmt|: the statement on a row, or a row of a tile.
  auto use = [&](const auto& stmt, int64_t line) {
    if (!ReadSpan(stmt, 0, 1, &ledger, line, &row.start_ns, &row.duration_ns)) return;
    while (next_op < ops.size() && ops[next_op].start_ns < row.start_ns) {
      events.Append(ops[next_op++]);
    }
    if (!stmt.Int64(6)) {  // no COMPUTE_TASK_INFO row: not a kernel
      const std::optional<int64_t> id = stmt.Int64(4);
      std::string task_type(strings.Text(stmt.Int64(5), &ledger, "taskType", line));
      ledger.Skip(id && comm_tasks.count(*id) > 0 ? RowIssue::kHcclPlaneTask
                                                  : RowIssue::kNonComputeDeviceTask,
                  line, std::move(task_type));
      return;
    }
    FillKernelStrings(stmt, line, &strings, &caches, &ledger, ctx.profile->strings, &row);
    row.device = Int32Or(stmt.Int64(2), ctx.device);
    row.stream = Int32Or(stmt.Int64(3), model::kNoStream);
    row.block_dim = Int32Or(stmt.Int64(10), 0);
    row.tensors = events.InternTensors(model::TensorDescription{
        .input_shapes =
            strings.Intern(stmt.Int64(11), &ledger, "inputShapes", line, &caches.shapes, Unquoted),
        .input_dtypes = strings.Intern(stmt.Int64(12), &ledger, "inputDataTypes", line,
                                       &caches.dtypes, Unquoted),
        .output_shapes =
            strings.Intern(stmt.Int64(14), &ledger, "outputShapes", line, &caches.shapes, Unquoted),
        .output_dtypes = strings.Intern(stmt.Int64(15), &ledger, "outputDataTypes", line,
                                        &caches.dtypes, Unquoted)});
    const std::optional<int64_t> wait = stmt.Int64(13);
    row.wait_ns = wait && InTimeRange(*wait) ? *wait : 0;
    row.op_state = model::OpState::kUnknown;
    row.step = StepOf(*ctx.steps, row.start_ns);
    row.correlation = stmt.Int64(16).value_or(model::kNoId);
    if (pmu.empty()) {
      events.Append(row);
    } else {
      const auto metrics = pmu.find(stmt.Int64(4).value_or(-1));
      events.Append(row, metrics == pmu.end() ? model::PmuMetrics{} : metrics->second);
    }
    ledger.Use();
  };
  const size_t events_before = events.size();
  bool read_in_tiles = false;
  if (scan != nullptr) {
    int64_t line = 0;
    while (const RowTile* tile = scan->Next()) {
      for (size_t i = 0; i < tile->rows(); ++i) {
        ledger.CountRead();
        use(tile->row(i), ++line);
      }
      TS_RETURN_IF_ERROR(tile->status());
    }
    read_in_tiles = line == task_rows;
    if (!read_in_tiles) {
      // Looked up by rowid, the table did not give the rows it counts: its
      // B-tree is out of rowid order (a damaged file). What one statement
      // reads in the stored order is what a rank on one thread gets, so the
      // rows are read again that way and the damage is said.
      ctx.profile->warnings.push_back(fmt::format(
          "{}: table TASK counts {} rows, but {} were found by rowid: the database is damaged "
          "(rowids out of order); TASK was read in its stored order. Check a copy with: sqlite3 "
          "COPY.db 'PRAGMA integrity_check'",
          db.path(), task_rows, line));
      events.Truncate(events_before);
      ledger = RowLedger(db.path() + ":TASK");
      next_op = 0;
    }
  }
  if (!read_in_tiles) {
    TS_ASSIGN_OR_RETURN(SqliteStatement stmt, db.Prepare(select, "TASK"));
    TS_RETURN_IF_ERROR(ForEachRow(stmt, ledger, [&](int64_t line) { use(stmt, line); }));
  }
  while (next_op < ops.size()) events.Append(ops[next_op++]);
  ctx.profile->ledgers.push_back(std::move(ledger));
  return Status::Ok();
}

}  // namespace trainscope::formats::ascend_db
