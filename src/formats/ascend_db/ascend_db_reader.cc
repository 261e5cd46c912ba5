#include "formats/ascend_db/ascend_db_reader.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/bus_fault.h"
#include "core/numbers.h"
#include "core/rule_file.h"
#include "core/sqlite_db.h"
#include "formats/ascend/ascend_rank_loader.h"
#include "formats/ascend/kernel_details_reader.h"
#include "formats/ascend/profiler_info_reader.h"
#include "formats/ascend/profiler_metadata_reader.h"
#include "formats/ascend/rank_inventory.h"
#include "formats/ascend_db/ascend_db_importer.h"
#include "formats/trace/chrome_json.h"
#include "formats/trace/timeline_builder.h"

namespace trainscope::formats {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kOutputDirName = "ASCEND_PROFILER_OUTPUT";
constexpr std::string_view kSchemaHint =
    "hint: expected torch_npu's db export (export_type=db, ascend_pytorch_profiler_<rank>.db); "
    "the file may be damaged, cut short or another program's database; export the run again, "
    "or with export_type=text";

// A column the reader selects; an absent optional column reads as NULL.
struct DbColumn {
  std::string_view name;
  bool required;
};

std::string Join(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

// "alias.col, NULL, ..." for |specs| in order; fails on a missing table or
// a missing required column, naming what the table has.
Result<std::string> SelectList(const SqliteDb& db, std::string_view table, std::string_view alias,
                               std::span<const DbColumn> specs) {
  TS_ASSIGN_OR_RETURN(bool present, db.HasTable(table));
  if (!present) {
    return InvalidInput(fmt::format("{}: table {} missing\n{}", db.path(), table, kSchemaHint));
  }
  TS_ASSIGN_OR_RETURN(std::set<std::string> columns, db.Columns(table));
  std::string list;
  for (const DbColumn& spec : specs) {
    const bool has = columns.count(std::string(spec.name)) > 0;
    if (!has && spec.required) {
      return InvalidInput(fmt::format("{}: table {} has no column {} (its columns: {})\n{}",
                                      db.path(), table, spec.name, Join(columns), kSchemaHint));
    }
    list += list.empty() ? "" : ", ";
    list += has ? fmt::format("{}.\"{}\"", alias, spec.name) : std::string("NULL");
  }
  return list;
}

// An ENUM_* table's (id, name) rows into |names| (a std::map or
// std::unordered_map); an absent table leaves |names| as it is.
template <typename IdNames>
Status ReadEnumTable(const SqliteDb& db, const std::string& table, IdNames* names) {
  TS_ASSIGN_OR_RETURN(bool present, db.HasTable(table));
  if (!present) return Status::Ok();
  static constexpr DbColumn kColumns[] = {{"id", true}, {"name", true}};
  TS_ASSIGN_OR_RETURN(std::string list, SelectList(db, table, "e", kColumns));
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt,
                      db.Prepare("SELECT " + list + " FROM " + table + " e", table));
  for (;;) {
    TS_ASSIGN_OR_RETURN(bool more, stmt.Step());
    if (!more) break;
    if (const std::optional<int64_t> id = stmt.Int64(0)) (*names)[*id] = std::string(stmt.Text(1));
  }
  return Status::Ok();
}

// StringId by string id: a vector for the dense ids torch_npu assigns
// (0, 1, 2, ...), a hash map above that.
class IdCache {
 public:
  const StringId* Find(int64_t id) const {
    if (id >= 0 && id < static_cast<int64_t>(dense_.size())) {
      const StringId& slot = dense_[static_cast<size_t>(id)];
      return slot == StringPool::kNotInterned ? nullptr : &slot;
    }
    auto it = sparse_.find(id);
    return it == sparse_.end() ? nullptr : &it->second;
  }
  void Put(int64_t id, StringId value) {
    if (id >= 0 && id < kDenseLimit) {
      if (id >= static_cast<int64_t>(dense_.size())) {
        dense_.resize(static_cast<size_t>(id) + 1, StringPool::kNotInterned);
      }
      dense_[static_cast<size_t>(id)] = value;
    } else {
      sparse_.insert_or_assign(id, value);
    }
  }

 private:
  static constexpr int64_t kDenseLimit = int64_t{1} << 22;
  std::vector<StringId> dense_;
  std::unordered_map<int64_t, StringId> sparse_;
};

// STRING_IDS: the strings of the export, interned into the profile's pool
// on first use. When id is the table's INTEGER PRIMARY KEY (torch_npu's
// schema) a string is read by id the first time a row refers to it, so rows
// nothing refers to are never read; otherwise the table is read whole. The
// ledger counts the rows read.
class StringTable {
 public:
  StringTable(StringPool* pool, RowLedger* ledger) : pool_(pool), ledger_(ledger) {}

  Status Load(const SqliteDb& db) {
    static constexpr DbColumn kColumns[] = {{"id", true}, {"value", true}};
    TS_ASSIGN_OR_RETURN(std::string list, SelectList(db, "STRING_IDS", "s", kColumns));
    TS_ASSIGN_OR_RETURN(bool by_key, LookupByKey(db));
    if (by_key) {
      TS_ASSIGN_OR_RETURN(
          SqliteStatement lookup,
          db.Prepare("SELECT s.\"value\" FROM STRING_IDS s WHERE s.\"id\" = ?", "STRING_IDS"));
      lookup_.emplace(std::move(lookup));
      return Status::Ok();
    }
    TS_ASSIGN_OR_RETURN(SqliteStatement stmt,
                        db.Prepare("SELECT " + list + " FROM STRING_IDS s", "STRING_IDS"));
    int64_t line = 0;
    for (;;) {
      TS_ASSIGN_OR_RETURN(bool row, stmt.Step());
      if (!row) break;
      ++line;
      ledger_->CountRead();
      const std::optional<int64_t> id = stmt.Int64(0);
      if (!id) {
        ledger_->Skip(RowIssue::kUnparsableValue, "id", line, std::string(stmt.Text(0)));
        continue;
      }
      text_.insert_or_assign(*id, std::string(stmt.Text(1)));
      ledger_->Use();
    }
    return Status::Ok();
  }

  // The first error of a lookup by id (a damaged page, the file shrank):
  // the reader fails with it once the tables are read.
  const Status& status() const { return error_; }

  // The text of string id |cell| (NULL: ""); an id STRING_IDS lacks is
  // noted on |ledger| and reads as "".
  std::string_view Text(const std::optional<int64_t>& id, RowLedger* ledger,
                        std::string_view column, int64_t line) {
    if (!id) return {};
    auto it = text_.find(*id);
    if (it == text_.end() && lookup_ && error_.ok() && absent_.count(*id) == 0) {
      it = Fetch(*id);
    }
    if (it == text_.end()) {
      if (error_.ok()) ledger->Note(RowIssue::kUnknownStringId, column, line, std::to_string(*id));
      return {};
    }
    return it->second;
  }

  // The pooled id of the text of string id |id|, passed through |transform|
  // (Unquoted for shapes), cached per id in |cache|: one lookup a row,
  // no hashing of the text.
  StringId Intern(const std::optional<int64_t>& id, RowLedger* ledger, std::string_view column,
                  int64_t line, IdCache* cache,
                  std::string_view (*transform)(std::string_view) = nullptr) {
    if (!id) return StringPool::kEmpty;
    if (const StringId* cached = cache->Find(*id)) return *cached;
    std::string_view text = Text(id, ledger, column, line);
    if (transform != nullptr) text = transform(text);
    const StringId interned = pool_->Intern(text);
    if (text_.count(*id) > 0) cache->Put(*id, interned);  // unknown ids are noted every time
    return interned;
  }

 private:
  // Whether SQLite finds a row by id through the table's key (a search, not
  // a scan of the table per id).
  static Result<bool> LookupByKey(const SqliteDb& db) {
    TS_ASSIGN_OR_RETURN(
        SqliteStatement plan,
        db.Prepare("EXPLAIN QUERY PLAN SELECT s.\"value\" FROM STRING_IDS s WHERE s.\"id\" = ?",
                   "STRING_IDS"));
    bool by_key = false;
    for (;;) {
      TS_ASSIGN_OR_RETURN(bool row, plan.Step());
      if (!row) break;
      by_key = by_key || plan.Text(3).find("USING INTEGER PRIMARY KEY") != std::string_view::npos;
    }
    return by_key;
  }

  std::unordered_map<int64_t, std::string>::iterator Fetch(int64_t id) {
    if (Status bound = lookup_->Rebind(id); !bound.ok()) {
      error_ = std::move(bound);
      return text_.end();
    }
    Result<bool> row = lookup_->Step();
    if (!row.ok()) {
      error_ = row.status();
      return text_.end();
    }
    if (!*row) {
      absent_.insert(id);
      return text_.end();
    }
    ledger_->CountRead();
    ledger_->Use();
    return text_.emplace(id, std::string(lookup_->Text(0))).first;
  }

  StringPool* pool_;
  RowLedger* ledger_;
  std::unordered_map<int64_t, std::string> text_;
  std::optional<SqliteStatement> lookup_;  // by id, when id is the key
  std::unordered_set<int64_t> absent_;     // ids looked up and not there
  Status error_ = Status::Ok();
};

// STEP_TIME: the steps' device ranges; a task is in the step its start
// lies in (both ends inclusive, as torch_npu assigns kernel_details.csv's
// Step Id).
// Sorted by start; reach_ns is the largest end_ns of this range and every
// range before it (nondecreasing), so the first range holding a time is
// found by two binary searches, however the ranges overlap.
struct StepRange {
  int32_t step;
  int64_t start_ns;
  int64_t end_ns;
  int64_t reach_ns = 0;
};

// The step of the first range (by start) that holds |start_ns|.
int32_t StepOf(const std::vector<StepRange>& steps, int64_t start_ns) {
  const auto last =
      std::upper_bound(steps.begin(), steps.end(), start_ns,
                       [](int64_t t, const StepRange& range) { return t < range.start_ns; });
  const auto first = std::partition_point(steps.begin(), last, [start_ns](const StepRange& range) {
    return range.reach_ns < start_ns;
  });
  return first == last ? model::kNoStep : first->step;
}

// Steps |stmt| to its end: each row is counted read in |ledger| and handed
// to |body| with its 1-based row number (for messages), which uses or skips
// it; a failed step ends the walk with its error.
template <typename Body>
Status ForEachRow(SqliteStatement& stmt, RowLedger& ledger, Body&& body) {
  for (int64_t line = 1;; ++line) {
    TS_ASSIGN_OR_RETURN(bool more, stmt.Step());
    if (!more) return Status::Ok();
    ledger.CountRead();
    body(line);
  }
}

Result<std::vector<StepRange>> ReadStepTime(const SqliteDb& db, model::RankProfile* profile) {
  std::vector<StepRange> steps;
  TS_ASSIGN_OR_RETURN(bool present, db.HasTable("STEP_TIME"));
  if (!present) {
    profile->missing_files.push_back(
        fmt::format("{}: STEP_TIME table (step ranges; without it the capture is one step)",
                    fs::path(db.path()).filename().string()));
    return steps;
  }
  static constexpr DbColumn kColumns[] = {{"id", true}, {"startNs", true}, {"endNs", true}};
  TS_ASSIGN_OR_RETURN(std::string list, SelectList(db, "STEP_TIME", "s", kColumns));
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt,
                      db.Prepare("SELECT " + list + " FROM STEP_TIME s", "STEP_TIME"));
  RowLedger ledger(db.path() + ":STEP_TIME");
  int64_t line = 0;
  for (;;) {
    TS_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    ++line;
    ledger.CountRead();
    const std::optional<int64_t> id = stmt.Int64(0);
    const std::optional<int64_t> start = stmt.Int64(1);
    const std::optional<int64_t> end = stmt.Int64(2);
    if (!id || *id < 0 || *id > INT32_MAX) {
      ledger.Skip(RowIssue::kUnparsableValue, "id", line, std::string(stmt.Text(0)));
    } else if (!start || !end) {
      ledger.Skip(RowIssue::kMissingValue, !start ? "startNs" : "endNs", line, "");
    } else if (!InTimeRange(*start) || !InTimeRange(*end) || *end < *start) {
      ledger.Skip(RowIssue::kValueOutOfRange, "step range", line,
                  fmt::format("{}..{}", *start, *end));
    } else {
      steps.push_back({static_cast<int32_t>(*id), *start, *end, *end});
      ledger.Use();
    }
  }
  profile->ledgers.push_back(std::move(ledger));
  std::stable_sort(steps.begin(), steps.end(),
                   [](const StepRange& a, const StepRange& b) { return a.start_ns < b.start_ns; });
  int64_t reach = std::numeric_limits<int64_t>::min();
  for (StepRange& range : steps) {
    reach = std::max(reach, range.end_ns);
    range.reach_ns = reach;
  }
  return steps;
}

// A [start, end] pair of integer ns: the row's start and duration, or the
// skip reason on |ledger|.
bool ReadSpan(const SqliteStatement& stmt, int start_col, int end_col, RowLedger* ledger,
              int64_t line, int64_t* start_ns, int64_t* duration_ns) {
  const std::optional<int64_t> start = stmt.Int64(start_col);
  const std::optional<int64_t> end = stmt.Int64(end_col);
  if (!start || !end) {
    const bool null = stmt.IsNull(!start ? start_col : end_col);
    ledger->Skip(null ? RowIssue::kMissingValue : RowIssue::kUnparsableValue,
                 !start ? "startNs" : "endNs", line,
                 std::string(stmt.Text(!start ? start_col : end_col)));
    return false;
  }
  if (*end < *start) {
    ledger->Skip(RowIssue::kNegativeValue, "duration", line, fmt::format("{}..{}", *start, *end));
    return false;
  }
  if (!InTimeRange(*start) || !InTimeRange(*end)) {
    ledger->Skip(RowIssue::kValueOutOfRange, "startNs", line, fmt::format("{}..{}", *start, *end));
    return false;
  }
  *start_ns = *start;
  *duration_ns = *end - *start;
  return true;
}

int32_t Int32Or(const std::optional<int64_t>& value, int32_t fallback) {
  if (!value || *value < INT32_MIN || *value > INT32_MAX) return fallback;
  return static_cast<int32_t>(*value);
}

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

struct DbContext {
  const SqliteDb* db;
  model::RankProfile* profile;
  StringTable* strings;
  const std::vector<StepRange>* steps;
  int32_t device = -1;
};

// Per string id, the pooled id of what a kernel row keeps of it.
struct KernelCaches {
  IdCache names, op_types, derived_op_types, cores, shapes, dtypes;
};

// Name, op type (derived from the name where COMPUTE_TASK_INFO has none),
// accelerator core and kind of a TASK + COMPUTE_TASK_INFO row.
void FillKernelStrings(const SqliteStatement& stmt, int64_t line, StringTable* strings,
                       KernelCaches* caches, RowLedger* ledger, StringPool& pool,
                       model::DeviceEvent* row) {
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
// of the events).
Status ReserveRows(const SqliteDb& db, model::DeviceEvents* events) {
  TS_ASSIGN_OR_RETURN(bool has_ops, db.HasTable("COMMUNICATION_OP"));
  TS_ASSIGN_OR_RETURN(
      SqliteStatement count,
      db.Prepare(has_ops ? "SELECT (SELECT count(*) FROM TASK) + (SELECT count(*) FROM "
                           "COMMUNICATION_OP)"
                         : "SELECT count(*) FROM TASK",
                 "TASK"));
  TS_ASSIGN_OR_RETURN(bool row, count.Step());
  const std::optional<int64_t> rows = row ? count.Int64(0) : std::nullopt;
  if (rows && *rows > 0 && *rows < (int64_t{1} << 32)) {
    events->Reserve(events->size() + static_cast<size_t>(*rows));
  }
  return Status::Ok();
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

// TASK LEFT JOIN COMPUTE_TASK_INFO: one kernel per compute task, with the
// communication ops of |ops| (sorted by start) merged in before the first
// task that starts after them.
Status ReadComputeTasks(const DbContext& ctx, const std::vector<model::DeviceEvent>& ops) {
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
  TS_ASSIGN_OR_RETURN(
      SqliteStatement stmt,
      db.Prepare("SELECT " + task_list + ", " + compute_list + ", " + link_list +
                     " FROM TASK t LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = "
                     "t.globalTaskId",
                 "TASK"));
  RowLedger ledger(db.path() + ":TASK");
  model::DeviceEvents& events = ctx.profile->device_events;
  TS_RETURN_IF_ERROR(ReserveRows(db, &events));
  StringTable& strings = *ctx.strings;
  TS_ASSIGN_OR_RETURN(auto pmu, ReadTaskPmu(ctx));
  KernelCaches caches;
  model::DeviceEvent row;
  size_t next_op = 0;
  TS_RETURN_IF_ERROR(ForEachRow(stmt, ledger, [&](int64_t line) {
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
    row.input_shapes =
        strings.Intern(stmt.Int64(11), &ledger, "inputShapes", line, &caches.shapes, Unquoted);
    row.input_dtypes =
        strings.Intern(stmt.Int64(12), &ledger, "inputDataTypes", line, &caches.dtypes, Unquoted);
    row.output_shapes =
        strings.Intern(stmt.Int64(14), &ledger, "outputShapes", line, &caches.shapes, Unquoted);
    row.output_dtypes =
        strings.Intern(stmt.Int64(15), &ledger, "outputDataTypes", line, &caches.dtypes, Unquoted);
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
  }));
  while (next_op < ops.size()) events.Append(ops[next_op++]);
  ctx.profile->ledgers.push_back(std::move(ledger));
  return Status::Ok();
}

// ENUM_HCCL_DATA_TYPE: COMMUNICATION_OP.dataType -> HCCL's name of it (FP32,
// BFP16, ...; trace_view.json's "data_type" spells them the same).
Result<std::map<int64_t, std::string>> HcclDataTypeNames(const SqliteDb& db) {
  std::map<int64_t, std::string> names;
  TS_RETURN_IF_ERROR(ReadEnumTable(db, "ENUM_HCCL_DATA_TYPE", &names));
  return names;
}

// COMMUNICATION_OP's record of the op's message and group (columns 6-8 of
// ReadCommunicationOps' select), as trace_view.json's op-level args.
model::CommOpMessage MessageOf(const SqliteStatement& stmt, std::string_view name,
                               const std::map<int64_t, std::string>& data_types,
                               StringTable* strings, RowLedger* ledger, int64_t line) {
  model::CommOpMessage message;
  message.name = std::string(name);
  const std::optional<int64_t> count = stmt.Int64(6);
  message.count = count && *count >= 0 ? *count : -1;
  if (const std::optional<int64_t> type = stmt.Int64(7)) {
    auto it = data_types.find(*type);
    if (it != data_types.end() && !IsMissingValue(it->second) && it->second != "INVALID_TYPE") {
      message.data_type = it->second;
    }
  }
  message.group_name = std::string(strings->Text(stmt.Int64(8), ledger, "groupName", line));
  return message;
}

// COMMUNICATION_OP: one row per collective or point-to-point op, its whole
// span (kernel_details.csv's hcom_* rows).
// The rows go to |ops| (sorted by start, stable) and the ledger to
// |ledger_out|: ReadComputeTasks merges them into the event table in start
// order, so a capture whose TASK rows come in time order needs no sort.
Status ReadCommunicationOps(const DbContext& ctx, std::vector<model::DeviceEvent>* ops,
                            std::optional<RowLedger>* ledger_out) {
  const SqliteDb& db = *ctx.db;
  TS_ASSIGN_OR_RETURN(bool present, db.HasTable("COMMUNICATION_OP"));
  if (!present) {
    ctx.profile->missing_files.push_back(
        fmt::format("{}: COMMUNICATION_OP table (communication ops; single-card runs have none)",
                    fs::path(db.path()).filename().string()));
    return Status::Ok();
  }
  static constexpr DbColumn kColumns[] = {
      {"opName", true},  {"startNs", true},   {"endNs", true},
      {"opType", false}, {"waitNs", false},   {"connectionId", false},
      {"count", false},  {"dataType", false}, {"groupName", false}};
  TS_ASSIGN_OR_RETURN(std::string list, SelectList(db, "COMMUNICATION_OP", "o", kColumns));
  TS_ASSIGN_OR_RETURN(auto data_types, HcclDataTypeNames(db));
  TS_ASSIGN_OR_RETURN(
      SqliteStatement stmt,
      db.Prepare("SELECT " + list + " FROM COMMUNICATION_OP o", "COMMUNICATION_OP"));
  RowLedger ledger(db.path() + ":COMMUNICATION_OP");
  StringTable& strings = *ctx.strings;
  const StringId hccl = ctx.profile->strings.Intern("HCCL");
  model::DeviceEvent row;
  TS_RETURN_IF_ERROR(ForEachRow(stmt, ledger, [&](int64_t line) {
    if (!ReadSpan(stmt, 1, 2, &ledger, line, &row.start_ns, &row.duration_ns)) return;
    const std::string_view name = strings.Text(stmt.Int64(0), &ledger, "opName", line);
    row.name = ctx.profile->strings.Intern(name);
    const std::string_view op_type = strings.Text(stmt.Int64(3), &ledger, "opType", line);
    row.op_type_derived = IsMissingValue(op_type);
    row.op_type =
        ctx.profile->strings.Intern(row.op_type_derived ? DeriveOpTypeFromName(name) : op_type);
    row.accelerator = hccl;
    row.kind = model::ActivityKind::kCommunication;
    row.device = ctx.device;
    row.stream = model::kNoStream;
    row.block_dim = 0;
    row.input_shapes = StringPool::kEmpty;
    row.input_dtypes = StringPool::kEmpty;
    row.output_shapes = StringPool::kEmpty;
    row.output_dtypes = StringPool::kEmpty;
    const std::optional<int64_t> wait = stmt.Int64(4);
    row.wait_ns = wait && InTimeRange(*wait) ? *wait : 0;
    row.op_state = model::OpState::kUnknown;
    row.step = StepOf(*ctx.steps, row.start_ns);
    row.correlation = stmt.Int64(5).value_or(model::kNoId);
    ops->push_back(row);
    ctx.profile->communication.messages.push_back(
        MessageOf(stmt, name, data_types, &strings, &ledger, line));
    ledger.Use();
  }));
  std::stable_sort(ops->begin(), ops->end(),
                   [](const model::DeviceEvent& a, const model::DeviceEvent& b) {
                     return a.start_ns < b.start_ns;
                   });
  *ledger_out = std::move(ledger);
  return Status::Ok();
}

// RANK_DEVICE_MAP (one row in a rank's db): the rank and its device.
Status ReadRankDeviceMap(const SqliteDb& db, model::RankProfile* profile, int32_t* device) {
  TS_ASSIGN_OR_RETURN(bool present, db.HasTable("RANK_DEVICE_MAP"));
  if (!present) return Status::Ok();
  static constexpr DbColumn kColumns[] = {{"rankId", true}, {"deviceId", false}};
  TS_ASSIGN_OR_RETURN(std::string list, SelectList(db, "RANK_DEVICE_MAP", "r", kColumns));
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt,
                      db.Prepare("SELECT " + list + " FROM RANK_DEVICE_MAP r", "RANK_DEVICE_MAP"));
  TS_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return Status::Ok();
  const int32_t rank = Int32Or(stmt.Int64(0), -1);
  *device = Int32Or(stmt.Int64(1), -1);
  TS_ASSIGN_OR_RETURN(bool second, stmt.Step());
  if (second) {
    profile->warnings.push_back(fmt::format(
        "{}: RANK_DEVICE_MAP has more than one row; the first (rank {}) is used", db.path(), rank));
  }
  // A single-card run writes -1 (no rank).
  if (rank >= 0 && !profile->info.rank) profile->info.rank = rank;
  return Status::Ok();
}

// META_DATA: ENV_VARIABLES (profiler_metadata.json's, as a JSON object).
Status ReadMetaData(const SqliteDb& db, model::RankProfile* profile) {
  TS_ASSIGN_OR_RETURN(bool present, db.HasTable("META_DATA"));
  if (!present) return Status::Ok();
  static constexpr DbColumn kColumns[] = {{"name", true}, {"value", true}};
  TS_ASSIGN_OR_RETURN(std::string list, SelectList(db, "META_DATA", "m", kColumns));
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt,
                      db.Prepare("SELECT " + list + " FROM META_DATA m", "META_DATA"));
  for (;;) {
    TS_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    if (stmt.Text(0) != "ENV_VARIABLES" || !profile->info.env.empty()) continue;
    const std::string json = fmt::format("{{\"ENV_VARIABLES\": {}}}", stmt.Text(1));
    Status status = ParseProfilerMetadata(json, db.path() + ":META_DATA", &profile->info);
    if (!status.ok()) profile->warnings.push_back(status.message());
  }
  return Status::Ok();
}

void WarnAboutWal(const std::string& path, model::RankProfile* profile) {
  struct stat st {};
  const std::string wal = path + "-wal";
  if (::stat(wal.c_str(), &st) == 0 && st.st_size > 0) {
    profile->warnings.push_back(fmt::format(
        "{}: a non-empty write-ahead log ({} bytes) lies beside the database and is not read "
        "(the export is opened immutable, never modified): rows still in it are missing\nhint: "
        "let torch_npu finish writing, or checkpoint a copy (sqlite3 COPY.db 'PRAGMA "
        "wal_checkpoint') and read the copy",
        wal, st.st_size));
  }
}

// ascend_pytorch_profiler_<N>.db -> N.
std::optional<int32_t> RankFromDbName(std::string_view name) {
  constexpr std::string_view kPrefix = "ascend_pytorch_profiler_";
  if (!name.starts_with(kPrefix) || !name.ends_with(".db")) return std::nullopt;
  const std::optional<int64_t> rank =
      ParseInt64(name.substr(kPrefix.size(), name.size() - kPrefix.size() - 3));
  if (!rank || *rank < 0 || *rank > INT32_MAX) return std::nullopt;
  return static_cast<int32_t>(*rank);
}

// analysis.db's communication tables, the db export's communication.json
// (CommAnalyzerTime + CommAnalyzerBandwidth) and communication_matrix.json
// (CommAnalyzerMatrix). Times ms, sizes MB, bandwidths GB/s, as the JSON.
// A value that cannot be a measurement (negative, not finite) is NaN:
// unknown, counted in one note per table.
class CommValues {
 public:
  CommValues(const SqliteStatement* stmt, std::string table)
      : stmt_(stmt), table_(std::move(table)) {}
  double Get(int column, std::string_view key) {
    const std::optional<double> v = stmt_->Double(column);
    if (!v) return 0;  // not reported
    if (!std::isfinite(*v) || *v < 0) {
      if (unknown_++ == 0) first_ = fmt::format("{} = {}", key, stmt_->Text(column));
      return std::numeric_limits<double>::quiet_NaN();
    }
    return *v;
  }
  void Report(const std::string& path, model::CommunicationData* data) const {
    if (unknown_ > 0) {
      data->notes.push_back(
          fmt::format("{}:{}: {} values not a measurement, read as unknown "
                      "(first: {})",
                      path, table_, unknown_, first_));
    }
  }

 private:
  const SqliteStatement* stmt_;
  std::string table_;
  int64_t unknown_ = 0;
  std::string first_;
};

// "step50" -> 50, else -1 (as communication.json's keys).
int32_t CommStep(std::string_view text) {
  text = TrimField(text);
  if (!text.starts_with("step")) return -1;
  const std::optional<int64_t> n = ParseInt64(text.substr(4));
  return n && *n >= 0 && *n <= INT32_MAX ? static_cast<int32_t>(*n) : -1;
}

double Ratio(double part, double transit) {
  const double whole = part + transit;
  return whole > 0 ? part / whole : 0;
}

// CommAnalyzerTime (one row per op) and CommAnalyzerBandwidth (per op and
// transport; one row per packet-size bucket, the totals repeated).
Status ReadCommOps(const SqliteDb& db, model::RankProfile* profile) {
  static constexpr DbColumn kTime[] = {{"hccl_op_name", true},
                                       {"group_name", false},
                                       {"start_timestamp", false},
                                       {"elapse_time", false},
                                       {"transit_time", false},
                                       {"wait_time", false},
                                       {"synchronization_time", false},
                                       {"idle_time", false},
                                       {"step", false},
                                       {"type", false}};
  TS_ASSIGN_OR_RETURN(std::string list, SelectList(db, "CommAnalyzerTime", "c", kTime));
  TS_ASSIGN_OR_RETURN(
      SqliteStatement stmt,
      db.Prepare("SELECT " + list + " FROM CommAnalyzerTime c", "CommAnalyzerTime"));
  model::CommunicationData& data = profile->communication;
  RowLedger ledger(db.path() + ":CommAnalyzerTime");
  CommValues values(&stmt, "CommAnalyzerTime");
  std::map<std::pair<std::string, std::string>, size_t> index;  // (op, group) -> ops[i]
  for (;;) {
    TS_ASSIGN_OR_RETURN(bool more, stmt.Step());
    if (!more) break;
    ledger.CountRead();
    model::CommOpRecord op;
    op.name = std::string(stmt.Text(0));
    op.group_hash = std::string(stmt.Text(1));
    op.start_us = values.Get(2, "start_timestamp");
    op.elapse_ms = values.Get(3, "elapse_time");
    op.transit_ms = values.Get(4, "transit_time");
    op.wait_ms = values.Get(5, "wait_time");
    op.sync_ms = values.Get(6, "synchronization_time");
    op.idle_ms = values.Get(7, "idle_time");
    op.step = CommStep(stmt.Text(8));
    op.p2p = stmt.Text(9) == "p2p";
    op.wait_ratio = Ratio(op.wait_ms, op.transit_ms);
    op.sync_ratio = Ratio(op.sync_ms, op.transit_ms);
    index.emplace(std::make_pair(op.name, op.group_hash), data.ops.size());
    data.ops.push_back(std::move(op));
    ledger.Use();
  }
  values.Report(db.path(), &data);
  profile->ledgers.push_back(std::move(ledger));
  data.ops_present = true;

  TS_ASSIGN_OR_RETURN(bool has_bandwidth, db.HasTable("CommAnalyzerBandwidth"));
  if (!has_bandwidth) return Status::Ok();
  static constexpr DbColumn kBandwidth[] = {{"hccl_op_name", true},       {"group_name", false},
                                            {"transport_type", true},     {"transit_size", false},
                                            {"transit_time", false},      {"bandwidth", false},
                                            {"large_packet_ratio", false}};
  TS_ASSIGN_OR_RETURN(std::string blist, SelectList(db, "CommAnalyzerBandwidth", "b", kBandwidth));
  TS_ASSIGN_OR_RETURN(
      SqliteStatement bstmt,
      db.Prepare("SELECT " + blist + " FROM CommAnalyzerBandwidth b", "CommAnalyzerBandwidth"));
  RowLedger bledger(db.path() + ":CommAnalyzerBandwidth");
  CommValues bvalues(&bstmt, "CommAnalyzerBandwidth");
  for (;;) {
    TS_ASSIGN_OR_RETURN(bool more, bstmt.Step());
    if (!more) break;
    bledger.CountRead();
    auto it = index.find({std::string(bstmt.Text(0)), std::string(bstmt.Text(1))});
    model::CommTransportBandwidth b;
    b.transport = std::string(bstmt.Text(2));
    b.size_mb = bvalues.Get(3, "transit_size");
    b.time_ms = bvalues.Get(4, "transit_time");
    b.bandwidth_gbps = bvalues.Get(5, "bandwidth");
    b.large_packet_ratio = bvalues.Get(6, "large_packet_ratio");
    if (b.size_mb > 0 && !(b.time_ms > 0) && b.bandwidth_gbps != 0) {
      b.bandwidth_gbps = std::numeric_limits<double>::quiet_NaN();  // size over no time
    }
    // Rows of one (op, transport) repeat its totals per packet-size bucket;
    // transports that moved nothing are left out, as from the JSON.
    const bool keep = it != index.end() && b.size_mb != 0;
    if (keep) {
      std::vector<model::CommTransportBandwidth>& kept = data.ops[it->second].bandwidth;
      if (std::none_of(kept.begin(), kept.end(), [&](const model::CommTransportBandwidth& x) {
            return x.transport == b.transport;
          })) {
        kept.push_back(std::move(b));
      }
    }
    bledger.Use();  // every row is the op's detail (repeats and empty transports included)
  }
  bvalues.Report(db.path(), &data);
  profile->ledgers.push_back(std::move(bledger));
  return Status::Ok();
}

// CommAnalyzerMatrix: "<type>-<statistic>" per link, as communication_matrix.json.
Status ReadCommMatrix(const SqliteDb& db, model::RankProfile* profile) {
  static constexpr DbColumn kMatrix[] = {
      {"hccl_op_name", true},  {"group_name", false},     {"src_rank", true},
      {"dst_rank", true},      {"transport_type", false}, {"transit_size", false},
      {"transit_time", false}, {"bandwidth", false},      {"step", false},
      {"type", false},         {"op_name", false}};
  TS_ASSIGN_OR_RETURN(std::string list, SelectList(db, "CommAnalyzerMatrix", "m", kMatrix));
  TS_ASSIGN_OR_RETURN(
      SqliteStatement stmt,
      db.Prepare("SELECT " + list + " FROM CommAnalyzerMatrix m", "CommAnalyzerMatrix"));
  model::CommunicationData& data = profile->communication;
  RowLedger ledger(db.path() + ":CommAnalyzerMatrix");
  CommValues values(&stmt, "CommAnalyzerMatrix");
  TS_RETURN_IF_ERROR(ForEachRow(stmt, ledger, [&](int64_t line) {
    const std::optional<int64_t> src = stmt.Int64(2);
    const std::optional<int64_t> dst = stmt.Int64(3);
    if (!src || !dst || *src < 0 || *dst < 0 || *src > INT32_MAX || *dst > INT32_MAX) {
      ledger.Skip(RowIssue::kUnparsableValue, !src ? "src_rank" : "dst_rank", line,
                  fmt::format("{} -> {}", stmt.Text(2), stmt.Text(3)));
      return;
    }
    model::CommLinkRecord link;
    const std::string_view key = stmt.Text(0);
    const size_t dash = key.rfind('-');
    link.op_type = std::string(key.substr(0, dash));
    link.statistic = dash == std::string_view::npos ? "" : std::string(key.substr(dash + 1));
    link.group_hash = std::string(stmt.Text(1));
    link.src = static_cast<int32_t>(*src);
    link.dst = static_cast<int32_t>(*dst);
    link.transport = std::string(stmt.Text(4));
    link.size_mb = values.Get(5, "transit_size");
    link.time_ms = values.Get(6, "transit_time");
    link.bandwidth_gbps = values.Get(7, "bandwidth");
    if (link.size_mb > 0 && !(link.time_ms > 0) && link.bandwidth_gbps != 0) {
      link.bandwidth_gbps = std::numeric_limits<double>::quiet_NaN();
    }
    link.step = CommStep(stmt.Text(8));
    link.p2p = stmt.Text(9) == "p2p";
    link.op_name = std::string(stmt.Text(10));
    data.links.push_back(std::move(link));
    ledger.Use();
  }));
  values.Report(db.path(), &data);
  profile->ledgers.push_back(std::move(ledger));
  data.matrix_present = true;
  return Status::Ok();
}

}  // namespace

// The memory tables of the export (profile_memory=True), into
// RankProfile::memory as the CSV readers fill it (formats/ascend/
// memory_readers.h), sizes in bytes and times in ns already: MEMORY_RECORD
// (memory_record.csv), OP_MEMORY (operator_memory.csv), NPU_MODULE_MEM
// (npu_module_mem.csv; moduleId names from ENUM_MODULE) and NPU_MEM (the
// driver's view of the process: type "app", as memory_record.csv's APP rows;
// Total Reserved = hbm + ddr). A table the export lacks is no error.
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
  TS_ASSIGN_OR_RETURN(std::string list, SelectList(db, "MEMORY_RECORD", "m", kColumns));
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt,
                      db.Prepare("SELECT " + list + " FROM MEMORY_RECORD m", "MEMORY_RECORD"));
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
  TS_ASSIGN_OR_RETURN(std::string list, SelectList(db, "OP_MEMORY", "o", kColumns));
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt,
                      db.Prepare("SELECT " + list + " FROM OP_MEMORY o", "OP_MEMORY"));
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
  TS_ASSIGN_OR_RETURN(std::string list, SelectList(db, "NPU_MODULE_MEM", "n", kColumns));
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt,
                      db.Prepare("SELECT " + list + " FROM NPU_MODULE_MEM n", "NPU_MODULE_MEM"));
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
  TS_ASSIGN_OR_RETURN(std::string list, SelectList(db, "NPU_MEM", "n", kColumns));
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt,
                      db.Prepare("SELECT " + list + " FROM NPU_MEM n", "NPU_MEM"));
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
  TS_ASSIGN_OR_RETURN(std::string list, SelectList(db, "NPU_INFO", "n", kColumns));
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt,
                      db.Prepare("SELECT " + list + " FROM NPU_INFO n", "NPU_INFO"));
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

namespace {

// PYTORCH_API.type -> its ENUM_API_TYPE name (torch_npu's fixed ids when
// the enum table is absent).
Result<std::unordered_map<int64_t, std::string>> ApiTypeNames(const SqliteDb& db) {
  std::unordered_map<int64_t, std::string> names = {
      {50001, "op"}, {50002, "queue"}, {50003, "trace"}, {50004, "mstx"}};
  TS_RETURN_IF_ERROR(ReadEnumTable(db, "ENUM_API_TYPE", &names));
  return names;
}

// The category trace_view.json gives the same host op: torch ops are
// cpu_op, the task queue's ops enqueue / dequeue, the Python tracer's
// frames python_function; another type keeps its enum name.
std::string_view HostCategory(std::string_view type_name, std::string_view name) {
  if (type_name == "op") return "cpu_op";
  if (type_name == "queue") return name.starts_with("Dequeue") ? "dequeue" : "enqueue";
  if (type_name == "trace") return "python_function";
  return type_name;
}

// PYTORCH_CALLCHAINS: callchainId -> the user frames of its stack, innermost
// first, one per line (frames ordered by stackDepth, 0 innermost; the rule
// of a trace's "Call stack", trace::UserFramesOf). Absent table: no call
// stacks (with_stack off).
Result<std::unordered_map<int64_t, StringId>> ReadCallChains(const DbContext& ctx) {
  std::unordered_map<int64_t, StringId> sources;
  const SqliteDb& db = *ctx.db;
  TS_ASSIGN_OR_RETURN(bool present, db.HasTable("PYTORCH_CALLCHAINS"));
  if (!present) {
    ctx.profile->missing_files.push_back(
        fmt::format("{}: PYTORCH_CALLCHAINS table (call stacks of host ops: with_stack=True)",
                    fs::path(db.path()).filename().string()));
    return sources;
  }
  static constexpr DbColumn kColumns[] = {{"id", true}, {"stack", true}, {"stackDepth", false}};
  TS_ASSIGN_OR_RETURN(std::string list, SelectList(db, "PYTORCH_CALLCHAINS", "c", kColumns));
  TS_ASSIGN_OR_RETURN(
      SqliteStatement stmt,
      db.Prepare("SELECT " + list + " FROM PYTORCH_CALLCHAINS c ORDER BY c.id, c.stackDepth",
                 "PYTORCH_CALLCHAINS"));
  RowLedger ledger(db.path() + ":PYTORCH_CALLCHAINS");
  StringPool& pool = ctx.profile->strings;
  // Rows come by id: one chain's frames are gathered, then interned.
  int64_t chain = 0;
  std::string frames;
  bool open = false;
  const auto close = [&] {
    if (open) sources[chain] = frames.empty() ? StringPool::kEmpty : pool.Intern(frames);
    frames.clear();
  };
  TS_RETURN_IF_ERROR(ForEachRow(stmt, ledger, [&](int64_t line) {
    const std::optional<int64_t> id = stmt.Int64(0);
    if (!id) {
      ledger.Skip(stmt.IsNull(0) ? RowIssue::kMissingValue : RowIssue::kUnparsableValue, "id", line,
                  std::string(stmt.Text(0)));
      return;
    }
    if (!open || *id != chain) {
      close();
      chain = *id;
      open = true;
    }
    const std::string user =
        trace::UserFramesOf(ctx.strings->Text(stmt.Int64(1), &ledger, "stack", line));
    if (!user.empty()) {
      if (!frames.empty()) frames += '\n';
      frames += user;
    }
    ledger.Use();
  }));
  close();
  ctx.profile->ledgers.push_back(std::move(ledger));
  return sources;
}

// PYTORCH_API: the host ops (torch ops, the task queue, the Python tracer's
// frames) into |tl|, with each op's connectionId (kNoId: none) in
// |connections|, row for row.
Status ReadPytorchApi(const DbContext& ctx, model::Timeline* tl,
                      std::vector<int64_t>* connections) {
  const SqliteDb& db = *ctx.db;
  TS_ASSIGN_OR_RETURN(auto chains, ReadCallChains(ctx));
  TS_ASSIGN_OR_RETURN(auto type_names, ApiTypeNames(db));
  static constexpr DbColumn kColumns[] = {
      {"startNs", true}, {"endNs", true},        {"globalTid", false}, {"connectionId", false},
      {"name", true},    {"callchainId", false}, {"type", false}};
  TS_ASSIGN_OR_RETURN(std::string list, SelectList(db, "PYTORCH_API", "p", kColumns));
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt,
                      db.Prepare("SELECT " + list + " FROM PYTORCH_API p", "PYTORCH_API"));
  RowLedger ledger(db.path() + ":PYTORCH_API");
  StringPool& pool = ctx.profile->strings;
  IdCache names;
  std::map<std::pair<int64_t, StringId>, StringId> categories;  // (type, name) -> category
  model::HostOp op;
  TS_RETURN_IF_ERROR(ForEachRow(stmt, ledger, [&](int64_t line) {
    if (!ReadSpan(stmt, 0, 1, &ledger, line, &op.start_ns, &op.duration_ns)) return;
    // globalTid is (pid << 32) | tid.
    const uint64_t global_tid = static_cast<uint64_t>(stmt.Int64(2).value_or(0));
    op.thread = tl->host_ops.ThreadOf(static_cast<int64_t>(global_tid >> 32),
                                      static_cast<int64_t>(global_tid & 0xFFFFFFFFu));
    op.name = ctx.strings->Intern(stmt.Int64(4), &ledger, "name", line, &names);
    const int64_t type = stmt.Int64(6).value_or(-1);
    auto [cat, inserted] = categories.try_emplace({type, op.name}, StringPool::kEmpty);
    if (inserted) {
      auto known = type_names.find(type);
      const std::string_view type_name =
          known == type_names.end() ? std::string_view() : std::string_view(known->second);
      cat->second = pool.Intern(HostCategory(type_name, pool.Get(op.name)));
    }
    op.category = cat->second;
    op.source = StringPool::kEmpty;
    if (const std::optional<int64_t> chain = stmt.Int64(5)) {
      if (auto it = chains.find(*chain); it != chains.end()) op.source = it->second;
    }
    tl->host_ops.Append(op);
    connections->push_back(stmt.Int64(3).value_or(model::kNoId));
    ledger.Use();
  }));
  ctx.profile->ledgers.push_back(std::move(ledger));
  return Status::Ok();
}

// CONNECTION_IDS: PYTORCH_API.connectionId -> the connectionIds of the
// device tasks it launched (TASK.connectionId, COMMUNICATION_OP's), kept on
// the device events as their correlation. Each linked event gets its
// launcher and an async_npu flow, as trace_view.json's flows give them.
// Where two host ops claim one task, the torch op (cpu_op) wins, then the
// deeper one (the op that issued it rather than its caller).
Status LinkLaunches(const DbContext& ctx, const std::vector<int64_t>& connections,
                    model::Timeline* tl) {
  const SqliteDb& db = *ctx.db;
  TS_ASSIGN_OR_RETURN(bool present, db.HasTable("CONNECTION_IDS"));
  if (!present) {
    ctx.profile->missing_files.push_back(
        fmt::format("{}: CONNECTION_IDS table (which host op launched each device task)",
                    fs::path(db.path()).filename().string()));
    return Status::Ok();
  }
  std::unordered_map<int64_t, int32_t> op_of;  // PYTORCH_API.connectionId -> host op
  for (size_t i = 0; i < connections.size(); ++i) {
    if (connections[i] != model::kNoId) op_of.emplace(connections[i], static_cast<int32_t>(i));
  }
  static constexpr DbColumn kColumns[] = {{"id", true}, {"connectionId", true}};
  TS_ASSIGN_OR_RETURN(std::string list, SelectList(db, "CONNECTION_IDS", "c", kColumns));
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt,
                      db.Prepare("SELECT " + list + " FROM CONNECTION_IDS c", "CONNECTION_IDS"));
  RowLedger ledger(db.path() + ":CONNECTION_IDS");
  const model::HostOps& ops = tl->host_ops;
  const StringId cpu_op = ctx.profile->strings.Intern("cpu_op");
  auto better = [&](int32_t a, int32_t b) {  // whether host op a launched rather than b
    const bool a_op = ops.category[static_cast<size_t>(a)] == cpu_op;
    const bool b_op = ops.category[static_cast<size_t>(b)] == cpu_op;
    if (a_op != b_op) return a_op;
    return ops.depth[static_cast<size_t>(a)] > ops.depth[static_cast<size_t>(b)];
  };
  std::unordered_map<int64_t, int32_t> launcher_of;  // task connectionId -> host op
  TS_RETURN_IF_ERROR(ForEachRow(stmt, ledger, [&](int64_t line) {
    const std::optional<int64_t> id = stmt.Int64(0);
    const std::optional<int64_t> task = stmt.Int64(1);
    if (!id || !task) {
      ledger.Skip(RowIssue::kMissingValue, !id ? "id" : "connectionId", line, "");
      return;
    }
    auto op = op_of.find(*id);
    if (op == op_of.end()) {
      ledger.Skip(RowIssue::kLinkWithoutHostOp, line, std::to_string(*id));
      return;
    }
    auto [it, inserted] = launcher_of.try_emplace(*task, op->second);
    if (!inserted && better(op->second, it->second)) it->second = op->second;
    ledger.Use();
  }));
  ctx.profile->ledgers.push_back(std::move(ledger));
  model::DeviceEvents& events = ctx.profile->device_events;
  const StringId async_npu = ctx.profile->strings.Intern("async_npu");
  for (size_t row = 0; row < events.size(); ++row) {
    if (events.correlation[row] == model::kNoId) continue;
    auto it = launcher_of.find(events.correlation[row]);
    if (it == launcher_of.end()) continue;
    events.launcher[row] = it->second;
    tl->flows.push_back(
        model::Flow{events.correlation[row], async_npu, it->second, static_cast<int32_t>(row)});
  }
  return Status::Ok();
}

// Host ops, their call stacks and launch links into profile->timeline;
// steps from the ProfilerStep#N ops. Without PYTORCH_API the rank has no
// timeline (the analyses that need host ops say so).
Status ReadHostOps(const DbContext& ctx) {
  const SqliteDb& db = *ctx.db;
  TS_ASSIGN_OR_RETURN(bool present, db.HasTable("PYTORCH_API"));
  if (!present) {
    ctx.profile->missing_files.push_back(fmt::format(
        "{}: PYTORCH_API table (host ops: launch delays, host-bound steps, source lines)",
        fs::path(db.path()).filename().string()));
    return Status::Ok();
  }
  model::Timeline tl;
  std::vector<int64_t> connections;
  TS_RETURN_IF_ERROR(ReadPytorchApi(ctx, &tl, &connections));
  const std::vector<uint32_t> order = trace::SortAndNestHostOps(&tl.host_ops);
  std::vector<int64_t> sorted(order.size());
  for (size_t k = 0; k < order.size(); ++k) sorted[k] = connections[order[k]];
  TS_RETURN_IF_ERROR(LinkLaunches(ctx, sorted, &tl));
  constexpr std::string_view kPrefix = "ProfilerStep#";
  const StringPool& pool = ctx.profile->strings;
  for (size_t i = 0; i < tl.host_ops.size(); ++i) {
    const std::string_view name = pool.Get(tl.host_ops.name[i]);
    if (!name.starts_with(kPrefix)) continue;
    const std::optional<int64_t> number = ParseInt64(name.substr(kPrefix.size()));
    if (!number || *number < 0 || *number > INT32_MAX) continue;
    tl.steps.push_back(model::Step{static_cast<int32_t>(*number), tl.host_ops.start_ns[i],
                                   tl.host_ops.end_ns(i), static_cast<int32_t>(i)});
  }
  std::sort(tl.steps.begin(), tl.steps.end(),
            [](const model::Step& a, const model::Step& b) { return a.start_ns < b.start_ns; });
  tl.step_source = tl.steps.empty() ? model::StepSource::kNone : model::StepSource::kProfilerStep;
  tl.present = true;
  tl.format = "ascend_db";
  tl.source = db.path();
  ctx.profile->timeline = std::move(tl);
  return Status::Ok();
}

// OVERLAP_ANALYSIS: CANN's Overlap Analysis of the device timeline (type 0
// Computing, 1 Communication, 2 Communication(Not Overlapped), 3 Free), as
// trace_view.json's "Overlap Analysis" lanes: the segments into
// timeline.overlap, and per STEP_TIME step their sums as a step_trace row
// (Computing, Communication, Not Overlapped, Free; Overlapped =
// Communication - Not Overlapped; Stage = Computing + Not Overlapped +
// Free, as CANN's StepTraceTime). ReadAnalysisDb prefers analysis.db's
// StepTraceTime and checks it against these rows.
Status ReadOverlapAnalysis(const DbContext& ctx) {
  const SqliteDb& db = *ctx.db;
  TS_ASSIGN_OR_RETURN(bool present, db.HasTable("OVERLAP_ANALYSIS"));
  if (!present) return Status::Ok();
  static constexpr DbColumn kColumns[] = {{"startNs", true}, {"endNs", true}, {"type", true}};
  TS_ASSIGN_OR_RETURN(std::string list, SelectList(db, "OVERLAP_ANALYSIS", "o", kColumns));
  TS_ASSIGN_OR_RETURN(
      SqliteStatement stmt,
      db.Prepare("SELECT " + list + " FROM OVERLAP_ANALYSIS o", "OVERLAP_ANALYSIS"));
  RowLedger ledger(db.path() + ":OVERLAP_ANALYSIS");
  std::map<int32_t, std::array<int64_t, 4>> sums;  // step -> per type
  model::OverlapSegment segment;
  TS_RETURN_IF_ERROR(ForEachRow(stmt, ledger, [&](int64_t line) {
    if (!ReadSpan(stmt, 0, 1, &ledger, line, &segment.start_ns, &segment.duration_ns)) return;
    const std::optional<int64_t> type = stmt.Int64(2);
    if (!type || *type < 0 || *type > 3) {
      ledger.Skip(RowIssue::kUnknownOverlapSegment, line, std::string(stmt.Text(2)));
      return;
    }
    segment.kind = static_cast<model::OverlapKind>(*type);
    ctx.profile->timeline.overlap.push_back(segment);
    const int32_t step = StepOf(*ctx.steps, segment.start_ns);
    if (step != model::kNoStep) {
      auto [it, inserted] = sums.try_emplace(step, std::array<int64_t, 4>{0, 0, 0, 0});
      AddSaturating(it->second[static_cast<size_t>(*type)], segment.duration_ns);
    }
    ledger.Use();
  }));
  ctx.profile->ledgers.push_back(std::move(ledger));
  for (const auto& [step, sum] : sums) {
    model::StepTraceRow row;
    row.step = step;
    row.computing_ns = sum[0];
    row.communication_ns = sum[1];
    row.communication_not_overlapped_ns = sum[2];
    row.free_ns = sum[3];
    row.overlapped_ns = std::max<int64_t>(0, sum[1] - sum[2]);
    row.stage_ns = row.overlap_step_ns();
    ctx.profile->step_trace.push_back(row);
  }
  return Status::Ok();
}

// analysis.db's StepTraceTime row against OVERLAP_ANALYSIS's sums of the
// same step: a quantity off by more than kOverlapToleranceNs is a warning
// (one of the two tables is incomplete).
constexpr int64_t kOverlapToleranceNs = 1000;

void CheckAgainstOverlap(const std::vector<model::StepTraceRow>& derived, const std::string& path,
                         model::RankProfile* profile) {
  for (const model::StepTraceRow& from_segments : derived) {
    const model::StepTraceRow* table = profile->StepTraceOf(from_segments.step);
    if (table == nullptr) {
      profile->warnings.push_back(fmt::format(
          "{}:StepTraceTime has no row for step {}, which the OVERLAP_ANALYSIS table of the rank's "
          "database covers",
          path, from_segments.step));
      continue;
    }
    const std::pair<std::string_view, int64_t model::StepTraceTimes::*> kFields[] = {
        {"computing", &model::StepTraceTimes::computing_ns},
        {"communication", &model::StepTraceTimes::communication_ns},
        {"communication_not_overlapped", &model::StepTraceTimes::communication_not_overlapped_ns},
        {"free", &model::StepTraceTimes::free_ns}};
    for (const auto& [name, field] : kFields) {
      const int64_t a = table->*field;
      const int64_t b = from_segments.*field;
      if (std::abs(a - b) <= kOverlapToleranceNs) continue;
      profile->warnings.push_back(fmt::format(
          "{}:StepTraceTime step {}: {} {:.3f} µs differs from the sum of the OVERLAP_ANALYSIS "
          "segments of the rank's database, {:.3f} µs (tolerance {} µs): one of the two tables is "
          "incomplete; the time budget is compared with StepTraceTime",
          path, from_segments.step, name, static_cast<double>(a) / 1e3,
          static_cast<double>(b) / 1e3, kOverlapToleranceNs / 1000));
    }
  }
}

}  // namespace

Status ReadAscendProfilerDb(const std::string& path, model::RankProfile* profile) {
  const BusFaultScope shrink_guard;  // SQLite maps the file
  TS_ASSIGN_OR_RETURN(SqliteDb db, SqliteDb::OpenReadOnly(path));
  WarnAboutWal(path, profile);
  int32_t device = -1;
  TS_RETURN_IF_ERROR(ReadRankDeviceMap(db, profile, &device));
  RowLedger string_ledger(path + ":STRING_IDS");
  StringTable strings(&profile->strings, &string_ledger);
  TS_RETURN_IF_ERROR(strings.Load(db));
  // Its place among the ledgers; filled once every string is looked up.
  const size_t string_ledger_at = profile->ledgers.size();
  profile->ledgers.emplace_back(path + ":STRING_IDS");
  TS_ASSIGN_OR_RETURN(std::vector<StepRange> steps, ReadStepTime(db, profile));
  const DbContext ctx{&db, profile, &strings, &steps, device};
  std::vector<model::DeviceEvent> comm_ops;
  std::optional<RowLedger> comm_ledger;
  TS_RETURN_IF_ERROR(ReadCommunicationOps(ctx, &comm_ops, &comm_ledger));
  TS_RETURN_IF_ERROR(ReadComputeTasks(ctx, comm_ops));
  if (comm_ledger) profile->ledgers.push_back(std::move(*comm_ledger));
  TS_RETURN_IF_ERROR(ReadMetaData(db, profile));
  TS_RETURN_IF_ERROR(ReadMemoryTables(ctx));
  profile->device_events.SortByStart();
  TS_RETURN_IF_ERROR(ReadHostOps(ctx));
  TS_RETURN_IF_ERROR(ReadOverlapAnalysis(ctx));
  TS_RETURN_IF_ERROR(strings.status());
  profile->ledgers[string_ledger_at] = std::move(string_ledger);
  profile->device_events_source = model::DeviceEventsSource::kKernelDetailsCsv;
  profile->device_events_from = path;
  if (!steps.empty() && !profile->device_events.Steps().empty()) {
    profile->steps_from = fmt::format("STEP_TIME table of {}", fs::path(path).filename().string());
  }
  return Status::Ok();
}

Status ReadAnalysisDb(const std::string& path, model::RankProfile* profile) {
  const BusFaultScope shrink_guard;  // SQLite maps the file
  TS_ASSIGN_OR_RETURN(SqliteDb db, SqliteDb::OpenReadOnly(path));
  WarnAboutWal(path, profile);
  TS_ASSIGN_OR_RETURN(bool has_time, db.HasTable("CommAnalyzerTime"));
  if (has_time) {
    TS_RETURN_IF_ERROR(ReadCommOps(db, profile));
  } else {
    profile->missing_files.push_back(
        "analysis.db: CommAnalyzerTime table (Level1+ only; per-op transit/wait/synchronization "
        "times for the cluster analysis)");
  }
  TS_ASSIGN_OR_RETURN(bool has_matrix, db.HasTable("CommAnalyzerMatrix"));
  if (has_matrix) {
    TS_RETURN_IF_ERROR(ReadCommMatrix(db, profile));
  } else {
    profile->missing_files.push_back(
        "analysis.db: CommAnalyzerMatrix table (Level1+ only; per-link bandwidths for slow-link "
        "detection)");
  }
  for (std::string& note : profile->communication.notes) {
    profile->warnings.push_back(std::move(note));
  }
  profile->communication.notes.clear();
  TS_ASSIGN_OR_RETURN(bool present, db.HasTable("StepTraceTime"));
  if (!present) {
    if (profile->step_trace.empty()) {
      profile->missing_files.push_back(
          "analysis.db: StepTraceTime table (the profiler's own step accounting)");
    }
    return Status::Ok();  // the OVERLAP_ANALYSIS rows, if any, stand
  }
  // The table's rows replace the ones OVERLAP_ANALYSIS gave (kept if the
  // table fails or has none), and are checked against them.
  std::vector<model::StepTraceRow> rows;
  static constexpr DbColumn kColumns[] = {
      {"step", true},       {"computing", true},     {"communication_not_overlapped", true},
      {"overlapped", true}, {"communication", true}, {"free", true},
      {"stage", false},     {"bubble", false},       {"preparing", false},
      {"deviceId", false}};
  TS_ASSIGN_OR_RETURN(std::string list, SelectList(db, "StepTraceTime", "s", kColumns));
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt,
                      db.Prepare("SELECT " + list + " FROM StepTraceTime s", "StepTraceTime"));
  static constexpr std::string_view kKeys[] = {"computing",  "communication_not_overlapped",
                                               "overlapped", "communication",
                                               "free",       "stage",
                                               "bubble",     "preparing"};
  RowLedger ledger(path + ":StepTraceTime");
  int64_t line = 0;
  for (;;) {
    TS_ASSIGN_OR_RETURN(bool more, stmt.Step());
    if (!more) break;
    ++line;
    ledger.CountRead();
    model::StepTraceRow row;
    std::string_view step_text = TrimField(stmt.Text(0));
    if (step_text.starts_with("step")) step_text.remove_prefix(4);
    const std::optional<int64_t> step = ParseInt64(step_text);
    if (!step || *step < 0 || *step > INT32_MAX) {
      ledger.Skip(RowIssue::kUnparsableValue, "step", line, std::string(stmt.Text(0)));
      continue;
    }
    row.step = static_cast<int32_t>(*step);
    // Times are REAL µs: read through SQLite's decimal rendering, never as
    // a double, like the CSV's cells.
    int64_t* const fields[] = {&row.computing_ns,  &row.communication_not_overlapped_ns,
                               &row.overlapped_ns, &row.communication_ns,
                               &row.free_ns,       &row.stage_ns,
                               &row.bubble_ns,     nullptr};
    bool ok = true;
    int64_t preparing = 0;
    for (int i = 0; i < 8 && ok; ++i) {
      if (stmt.IsNull(i + 1)) continue;
      const std::optional<int64_t> ns = ParseMicrosToNanos(stmt.Text(i + 1));
      if (!ns) {
        ledger.Skip(RowIssue::kUnparsableValue, kKeys[i], line, std::string(stmt.Text(i + 1)));
        ok = false;
      } else if (!InTimeRange(*ns)) {
        ledger.Skip(RowIssue::kValueOutOfRange, kKeys[i], line, std::string(stmt.Text(i + 1)));
        ok = false;
      } else {
        *(fields[i] != nullptr ? fields[i] : &preparing) = *ns;
      }
    }
    if (!ok) continue;
    if (!stmt.IsNull(8)) row.preparing_ns = preparing;
    if (const std::optional<int64_t> device = stmt.Int64(9);  // CANN 8.3+
        device && *device >= 0 && *device <= INT32_MAX) {
      row.device_id = static_cast<int32_t>(*device);
    }
    rows.push_back(row);
    ledger.Use();
  }
  profile->ledgers.push_back(std::move(ledger));
  if (!rows.empty()) {
    std::vector<model::StepTraceRow> derived;
    derived.swap(profile->step_trace);
    profile->step_trace = std::move(rows);
    CheckAgainstOverlap(derived, path, profile);
  }
  return Status::Ok();
}

Result<model::RankProfile> LoadAscendDbRank(const std::string& rank_dir) {
  std::error_code ec;
  fs::path dir(rank_dir);
  if (!fs::is_directory(dir, ec)) {
    return NotFound(
        fmt::format("{}: not a directory (expected a *_ascend_pt rank directory)", rank_dir));
  }
  if (dir.filename().empty()) dir = dir.parent_path();
  fs::path source_dir = dir;
  fs::path output_dir = dir / kOutputDirName;
  if (dir.filename() == kOutputDirName) {
    output_dir = dir;
    source_dir = dir.parent_path();
  }
  model::RankProfile profile;
  profile.source_dir = source_dir.string();
  profile.profiler_output = output_dir.string();

  // The rank's own database; with several (should not happen), the lowest.
  fs::path db_path;
  std::optional<int32_t> db_rank;
  for (fs::directory_iterator it(output_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::optional<int32_t> rank = RankFromDbName(it->path().filename().string());
    if (rank && (!db_rank || *rank < *db_rank)) {
      db_rank = rank;
      db_path = it->path();
    }
  }
  // Only a regular file that starts like a SQLite database is opened (a
  // FIFO or device named like one must never block the load).
  if (!db_path.empty()) {
    if (Status header = CheckSqliteHeader(db_path.string()); !header.ok()) {
      return InvalidInput(fmt::format("{}\n{}", header.message(), kSchemaHint));
    }
  }
  if (db_path.empty()) {
    return NotFound(fmt::format(
        "{}: no ascend_pytorch_profiler_<rank>.db in {}\nhint: analysis.db alone holds no "
        "kernels; pass the *_ascend_pt directory torch_npu wrote with export_type=db",
        rank_dir, output_dir.string()));
  }

  std::set<std::string> opened = {db_path.string()};
  const std::string info_path = FindProfilerInfoFile(source_dir.string());
  if (!info_path.empty()) opened.insert(info_path);
  if (info_path.empty()) {
    profile.missing_files.push_back(
        "profiler_info_<rank>.json (rank id, torch_npu/CANN versions, profiler level)");
  } else if (Status status = ReadProfilerInfoFile(info_path, &profile.info); !status.ok()) {
    profile.warnings.push_back(status.message());
  }
  const fs::path metadata = source_dir / "profiler_metadata.json";
  if (PresentInAnyForm(metadata.string())) {
    opened.insert(metadata.string());
    if (Status status = ReadProfilerMetadataFile(metadata.string(), &profile.info); !status.ok()) {
      profile.warnings.push_back(status.message());
    }
  }

  TS_RETURN_IF_ERROR(ReadAscendProfilerDb(db_path.string(), &profile));
  const fs::path analysis = output_dir / "analysis.db";
  if (!PresentInAnyForm(analysis.string())) {
    // The rank database's OVERLAP_ANALYSIS sums stand in for StepTraceTime
    // when it has that table: then only the communication tables are lost.
    profile.missing_files.push_back(
        profile.step_trace.empty()
            ? "analysis.db (step times and compute/communication overlap per step)"
            : "analysis.db (communication times and bandwidths per op; the step times come "
              "from the rank database's OVERLAP_ANALYSIS instead)");
  } else if (Status header = CheckSqliteHeader(analysis.string()); !header.ok()) {
    profile.warnings.push_back(fmt::format("{}; not read", header.message()));
  } else {
    opened.insert(analysis.string());
    if (Status status = ReadAnalysisDb(analysis.string(), &profile); !status.ok()) {
      profile.warnings.push_back(status.message());
    }
  }
  if (!profile.info.rank) profile.info.rank = db_rank;
  if (profile.info.rank) profile.rank = *profile.info.rank;
  TakeRankInventory(opened, /*db_rank=*/true, &profile);
  return profile;
}

}  // namespace trainscope::formats
