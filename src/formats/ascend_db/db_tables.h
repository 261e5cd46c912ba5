// What every reader of the .db export shares (internal to ascend_db/): the
// columns a reader selects and how a missing table or column fails, the walk
// over a statement's rows, the STRING_IDS table, the STEP_TIME ranges a row
// is placed in, and the context one rank's tables are read with. The readers
// of the table groups are declared in db_readers.h.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/numbers.h"
#include "core/row_ledger.h"
#include "core/sqlite_db.h"
#include "core/status.h"
#include "core/string_pool.h"
#include "model/rank_profile.h"

namespace trainscope::formats::ascend_db {

inline constexpr std::string_view kSchemaHint =
    "hint: expected torch_npu's db export (export_type=db, ascend_pytorch_profiler_<rank>.db); "
    "the file may be damaged, cut short or another program's database; export the run again, "
    "or with export_type=text";

// A column the reader selects; an absent optional column reads as NULL.
struct DbColumn {
  std::string_view name;
  bool required;
};

// "alias.col, NULL, ..." for |specs| in order; fails on a missing table or
// a missing required column, naming what the table has.
Result<std::string> SelectList(const SqliteDb& db, std::string_view table, std::string_view alias,
                               std::span<const DbColumn> specs);

// "SELECT <SelectList> FROM |table| |alias||tail|" prepared (|tail|: an
// ORDER BY, say); fails as SelectList does.
Result<SqliteStatement> SelectFrom(const SqliteDb& db, std::string_view table,
                                   std::string_view alias, std::span<const DbColumn> specs,
                                   std::string_view tail = {});

// "<file name>: <what>" into profile->missing_files: a table the export
// lacks, |what| naming it and what is lost without it.
void NoteMissingTable(const SqliteDb& db, std::string_view what, model::RankProfile* profile);

// A warning when a non-empty write-ahead log lies beside |path|: the
// database is opened immutable, so the rows still in the log are not read.
void WarnAboutWal(const std::string& path, model::RankProfile* profile);

// An ENUM_* table's (id, name) rows into |names| (a std::map or
// std::unordered_map); an absent table leaves |names| as it is.
template <typename IdNames>
Status ReadEnumTable(const SqliteDb& db, const std::string& table, IdNames* names) {
  TS_ASSIGN_OR_RETURN(bool present, db.HasTable(table));
  if (!present) return Status::Ok();
  static constexpr DbColumn kColumns[] = {{"id", true}, {"name", true}};
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt, SelectFrom(db, table, "e", kColumns));
  for (;;) {
    TS_ASSIGN_OR_RETURN(bool more, stmt.Step());
    if (!more) break;
    if (const std::optional<int64_t> id = stmt.Int64(0)) (*names)[*id] = std::string(stmt.Text(1));
  }
  return Status::Ok();
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

// A [start, end] pair of integer ns: the row's start and duration, or the
// skip reason on |ledger|. |Row|: a SqliteStatement on a row, or a decoded
// row of a TiledScan (db_tiled_scan.h).
template <typename Row>
bool ReadSpan(const Row& row, int start_col, int end_col, RowLedger* ledger, int64_t line,
              int64_t* start_ns, int64_t* duration_ns) {
  const std::optional<int64_t> start = row.Int64(start_col);
  const std::optional<int64_t> end = row.Int64(end_col);
  if (!start || !end) {
    const int bad = !start ? start_col : end_col;
    ledger->Skip(row.IsNull(bad) ? RowIssue::kMissingValue : RowIssue::kUnparsableValue,
                 !start ? "startNs" : "endNs", line, std::string(row.Text(bad)));
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

// |value| as an int32, |fallback| when NULL or out of range.
int32_t Int32Or(const std::optional<int64_t>& value, int32_t fallback);

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

  Status Load(const SqliteDb& db);

  // The first error of a lookup by id (a damaged page, the file shrank):
  // the reader fails with it once the tables are read.
  const Status& status() const { return error_; }

  // The text of string id |cell| (NULL: ""); an id STRING_IDS lacks is
  // noted on |ledger| and reads as "".
  std::string_view Text(const std::optional<int64_t>& id, RowLedger* ledger,
                        std::string_view column, int64_t line);

  // The pooled id of the text of string id |id|, passed through |transform|
  // (Unquoted for shapes), cached per id in |cache|: one lookup a row,
  // no hashing of the text.
  StringId Intern(const std::optional<int64_t>& id, RowLedger* ledger, std::string_view column,
                  int64_t line, IdCache* cache,
                  std::string_view (*transform)(std::string_view) = nullptr);

 private:
  // Whether SQLite finds a row by id through the table's key (a search, not
  // a scan of the table per id).
  static Result<bool> LookupByKey(const SqliteDb& db);

  std::unordered_map<int64_t, std::string>::iterator Fetch(int64_t id);

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
int32_t StepOf(const std::vector<StepRange>& steps, int64_t start_ns);

// One rank database's tables are read with this: the database, the profile
// filled, its strings, its steps and its device (RANK_DEVICE_MAP; -1 when
// unknown).
struct DbContext {
  const SqliteDb* db;
  model::RankProfile* profile;
  StringTable* strings;
  const std::vector<StepRange>* steps;
  int32_t device = -1;
};

}  // namespace trainscope::formats::ascend_db
