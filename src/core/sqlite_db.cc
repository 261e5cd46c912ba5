#include "core/sqlite_db.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <utility>

#include "core/numbers.h"

namespace trainscope {
namespace {

constexpr std::string_view kReadHint =
    "hint: the .db export must be a complete SQLite database written by torch_npu "
    "(export_type=db); a copy still being written or cut short cannot be read";

Status SqliteError(const std::string& path, std::string_view what, sqlite3* db, int rc,
                   bool writable, std::string_view hint) {
  const std::string prefix = what.empty() ? std::string() : fmt::format("{}: ", what);
  const char* message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  if (writable) {
    return IoError(fmt::format("{}: {}SQLite error {} ({})\n{}", path, prefix, rc,
                               message != nullptr ? message : "unknown", hint));
  }
  if ((rc & 0xff) == SQLITE_INTERRUPT) {
    return InvalidInput(fmt::format(
        "{}: {}query stopped at its deadline ({} s)\nhint: the table is larger or its schema "
        "more costly than a torch_npu export; the database may be hostile or another program's",
        path, prefix, SqliteDb::kQueryDeadline.count()));
  }
  if ((rc & 0xff) == SQLITE_NOMEM) {
    return InvalidInput(fmt::format(
        "{}: {}query needs more than SQLite's memory cap ({} MiB)\nhint: a cell or table is "
        "larger than a torch_npu export writes; the database may be hostile or another program's",
        path, prefix, SqliteDb::kHeapLimitBytes >> 20));
  }
  return InvalidInput(fmt::format("{}: {}SQLite error {} ({})\n{}", path, prefix, rc,
                                  message != nullptr ? message : "unknown", hint));
}

Status ShrankError(const std::string& path, std::string_view what) {
  return InvalidInput(fmt::format(
      "{}: {}: the file shrank while it was read; not read\nhint: another program is writing or "
      "truncating it; read it once it is complete, or read a copy",
      path, what));
}

// SQLite's heap cap, set once for the process (a lower cap set by the
// embedding program is kept).
void CapSqliteHeap() {
  static const bool capped = [] {
    const sqlite3_int64 current = sqlite3_hard_heap_limit64(-1);
    if (current <= 0 || current > SqliteDb::kHeapLimitBytes) {
      sqlite3_hard_heap_limit64(SqliteDb::kHeapLimitBytes);
    }
    return true;
  }();
  (void)capped;
}

// The progress handler: non-zero interrupts the running statement.
int PastDeadline(void* deadline) {
  return std::chrono::steady_clock::now() >
                 *static_cast<const std::chrono::steady_clock::time_point*>(deadline)
             ? 1
             : 0;
}

// SQLite virtual machine instructions between two deadline checks.
constexpr int kProgressInterval = 100000;

}  // namespace

std::string ReadOnlyUri(const std::string& path) {
  std::string uri = "file:";
  for (char c : path) {
    if (c == '?' || c == '#' || c == '%') {
      uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    } else {
      uri += c;
    }
  }
  uri += "?mode=ro&immutable=1";
  return uri;
}

SqliteDb::SqliteDb(std::string path, sqlite3* db, bool writable, std::string hint)
    : path_(std::move(path)),
      db_(db),
      writable_(writable),
      hint_(std::move(hint)),
      deadline_(std::make_unique<Deadline>()) {
  if (!writable_) sqlite3_progress_handler(db_, kProgressInterval, PastDeadline, &deadline_->end);
}

Status SqliteDb::Error(std::string_view what, int rc) const {
  // A read that failed because the file is now shorter than when it was
  // opened: say so, rather than SQLite's "disk I/O error" or "malformed".
  if (!writable_ && opened_bytes_ >= 0) {
    std::error_code ec;
    const auto now = std::filesystem::file_size(path_, ec);
    if (!ec && static_cast<int64_t>(now) < opened_bytes_) return ShrankError(path_, what);
  }
  return SqliteError(path_, what, db_, rc, writable_, hint_);
}

Result<SqliteDb> SqliteDb::OpenReadOnly(const std::string& path) {
  CapSqliteHeap();
  sqlite3* db = nullptr;
  const int rc =
      sqlite3_open_v2(ReadOnlyUri(path).c_str(), &db,
                      SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    Status status = SqliteError(path, "open", db, rc, false, kReadHint);
    sqlite3_close(db);
    return status;
  }
  SqliteDb result(path, db, false, std::string(kReadHint));
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path, ec);
  if (!ec) result.opened_bytes_ = static_cast<int64_t>(bytes);
  // Pages are read() into SQLite's small page cache, not memory-mapped: a
  // map, as fast on a 1.3 GB export (the join's time is SQLite decoding
  // rows, not reading pages), kept every page read in the process's
  // resident set, 0.8 GB of a 2.7 GB peak (docs/benchmarks.md).
  TS_ASSIGN_OR_RETURN(SqliteStatement no_map, result.Prepare("PRAGMA mmap_size = 0", "mmap_size"));
  TS_RETURN_IF_ERROR(no_map.Step().status());
  // A file that is not a database opens fine: the first read of the schema
  // says so.
  TS_ASSIGN_OR_RETURN(SqliteStatement probe,
                      result.Prepare("SELECT count(*) FROM sqlite_master", "schema"));
  TS_RETURN_IF_ERROR(probe.Step().status());
  return result;
}

Result<SqliteDb> SqliteDb::OpenForWriting(const std::string& file, std::string shown_as,
                                          std::string hint) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(
      file.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    Status status = SqliteError(shown_as, "open", db, rc, true, hint);
    sqlite3_close(db);
    return status;
  }
  return SqliteDb(std::move(shown_as), db, true, std::move(hint));
}

Status SqliteDb::Exec(const std::string& sql, std::string_view what) const {
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return Error(what, rc);
  return Status::Ok();
}

Status SqliteDb::Close() {
  const int rc = sqlite3_close(db_);
  if (rc != SQLITE_OK) return Error("close", rc);
  db_ = nullptr;
  return Status::Ok();
}

SqliteDb::SqliteDb(SqliteDb&& other) noexcept
    : path_(std::move(other.path_)),
      db_(std::exchange(other.db_, nullptr)),
      writable_(other.writable_),
      hint_(std::move(other.hint_)),
      deadline_(std::move(other.deadline_)),
      opened_bytes_(other.opened_bytes_) {}

SqliteDb& SqliteDb::operator=(SqliteDb&& other) noexcept {
  if (this != &other) {
    sqlite3_close(db_);
    path_ = std::move(other.path_);
    db_ = std::exchange(other.db_, nullptr);
    writable_ = other.writable_;
    hint_ = std::move(other.hint_);
    deadline_ = std::move(other.deadline_);
    opened_bytes_ = other.opened_bytes_;
  }
  return *this;
}

SqliteDb::~SqliteDb() { sqlite3_close(db_); }

Result<bool> SqliteDb::HasTable(std::string_view table) const {
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt,
                      Prepare(fmt::format("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                                          "name = '{}'",
                                          table),
                              "schema"));
  return stmt.Step();
}

Result<std::set<std::string>> SqliteDb::Columns(std::string_view table) const {
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt,
                      Prepare(fmt::format("PRAGMA table_info(\"{}\")", table), table));
  std::set<std::string> columns;
  for (;;) {
    TS_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    columns.emplace(stmt.Text(1));
  }
  return columns;
}

Result<SqliteStatement> SqliteDb::Prepare(const std::string& sql, std::string_view what) const {
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return Error(what, rc);
  }
  return SqliteStatement(this, stmt, std::string(what));
}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : db_(other.db_),
      stmt_(std::exchange(other.stmt_, nullptr)),
      what_(std::move(other.what_)),
      end_(other.end_),
      started_(other.started_) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    db_ = other.db_;
    stmt_ = std::exchange(other.stmt_, nullptr);
    what_ = std::move(other.what_);
    end_ = other.end_;
    started_ = other.started_;
  }
  return *this;
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(stmt_); }

Result<bool> SqliteStatement::Step() {
  if (!started_) {
    started_ = true;
    end_ = std::chrono::steady_clock::now() + db_->deadline_->limit;
  }
  db_->deadline_->end = end_;  // the handler is the connection's; statements interleave
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return db_->Error(what_, rc);
}

Status SqliteStatement::Rebind(std::initializer_list<int64_t> values) {
  sqlite3_reset(stmt_);
  int parameter = 1;
  for (const int64_t value : values) {
    const int rc = sqlite3_bind_int64(stmt_, parameter++, value);
    if (rc != SQLITE_OK) return db_->Error(what_, rc);
  }
  return Status::Ok();
}

void SqliteStatement::BindInt64(int parameter, int64_t value) {
  sqlite3_bind_int64(stmt_, parameter, value);
}

void SqliteStatement::BindDouble(int parameter, double value) {
  sqlite3_bind_double(stmt_, parameter, value);
}

void SqliteStatement::BindText(int parameter, std::string_view text) {
  sqlite3_bind_text(stmt_, parameter, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
}

void SqliteStatement::BindNull(int parameter) { sqlite3_bind_null(stmt_, parameter); }

Status SqliteStatement::Run() {
  const int rc = sqlite3_step(stmt_);
  Status status = rc == SQLITE_DONE ? Status::Ok() : db_->Error(what_, rc);
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  return status;
}

bool SqliteStatement::IsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

// inline: Int64 is called for every cell of a table (not inlined, the
// .db read of 200 k rows took 7 % longer).
inline SqliteStatement::CellKind SqliteStatement::IntegerCell(int column, int64_t* out) const {
  // One column fetch, then the value's own accessors (the connection is
  // used by one thread: the unprotected value is safe to read).
  sqlite3_value* value = sqlite3_column_value(stmt_, column);
  switch (sqlite3_value_type(value)) {
    case SQLITE_INTEGER:
      *out = static_cast<int64_t>(sqlite3_value_int64(value));
      return CellKind::kInteger;
    case SQLITE_NULL:
      return CellKind::kNull;
    case SQLITE_TEXT:
      if (const std::optional<int64_t> parsed = ParseInt64(Text(column))) {
        *out = *parsed;
        return CellKind::kInteger;
      }
      return CellKind::kOther;
    default:
      return CellKind::kOther;
  }
}

bool SqliteStatement::IntegerCellValue(int column, int64_t* out) const {
  return IntegerCell(column, out) == CellKind::kInteger;
}

std::optional<double> SqliteStatement::Double(int column) const {
  sqlite3_value* value = sqlite3_column_value(stmt_, column);
  switch (sqlite3_value_type(value)) {
    case SQLITE_INTEGER:
    case SQLITE_FLOAT:
      return sqlite3_value_double(value);
    case SQLITE_TEXT:
      return ParseDouble(Text(column));
    default:
      return std::nullopt;
  }
}

void SqliteStatement::IntegerCells(std::span<int64_t> values, std::span<CellKind> kinds) const {
  for (size_t c = 0; c < values.size(); ++c) {
    values[c] = 0;
    kinds[c] = IntegerCell(static_cast<int>(c), &values[c]);
  }
}

std::string_view SqliteStatement::Text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return {};
  return {reinterpret_cast<const char*>(text),
          static_cast<size_t>(sqlite3_column_bytes(stmt_, column))};
}

}  // namespace trainscope
