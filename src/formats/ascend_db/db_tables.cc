#include "formats/ascend_db/db_tables.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "core/numbers.h"

namespace trainscope::formats::ascend_db {
namespace {

std::string JoinColumnNames(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

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
                                      db.path(), table, spec.name, JoinColumnNames(columns),
                                      kSchemaHint));
    }
    list += list.empty() ? "" : ", ";
    list += has ? fmt::format("{}.\"{}\"", alias, spec.name) : std::string("NULL");
  }
  return list;
}

Result<SqliteStatement> SelectFrom(const SqliteDb& db, std::string_view table,
                                   std::string_view alias, std::span<const DbColumn> specs,
                                   std::string_view tail) {
  TS_ASSIGN_OR_RETURN(std::string list, SelectList(db, table, alias, specs));
  return db.Prepare(fmt::format("SELECT {} FROM {} {}{}", list, table, alias, tail), table);
}

void NoteMissingTable(const SqliteDb& db, std::string_view what, model::RankProfile* profile) {
  profile->missing_files.push_back(
      fmt::format("{}: {}", std::filesystem::path(db.path()).filename().string(), what));
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

int32_t Int32Or(const std::optional<int64_t>& value, int32_t fallback) {
  if (!value || *value < INT32_MIN || *value > INT32_MAX) return fallback;
  return static_cast<int32_t>(*value);
}

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

Status StringTable::Load(const SqliteDb& db) {
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

std::string_view StringTable::Text(const std::optional<int64_t>& id, RowLedger* ledger,
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

StringId StringTable::Intern(const std::optional<int64_t>& id, RowLedger* ledger,
                             std::string_view column, int64_t line, IdCache* cache,
                             std::string_view (*transform)(std::string_view)) {
  if (!id) return StringPool::kEmpty;
  if (const StringId* cached = cache->Find(*id)) return *cached;
  std::string_view text = Text(id, ledger, column, line);
  if (transform != nullptr) text = transform(text);
  const StringId interned = pool_->Intern(text);
  if (text_.count(*id) > 0) cache->Put(*id, interned);  // unknown ids are noted every time
  return interned;
}

Result<bool> StringTable::LookupByKey(const SqliteDb& db) {
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

std::unordered_map<int64_t, std::string>::iterator StringTable::Fetch(int64_t id) {
  if (Status bound = lookup_->Rebind({id}); !bound.ok()) {
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

}  // namespace trainscope::formats::ascend_db
