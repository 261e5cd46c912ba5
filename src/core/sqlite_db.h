// An SQLite database: the one place trainscope calls the SQLite C API, for
// the Ascend .db export it reads (formats/ascend_db) and the database
// `analyze --sqlite` writes (export/sqlite_export).
//
// Reading (OpenReadOnly): opened with SQLITE_OPEN_READONLY | SQLITE_OPEN_URI as
// "file:<path>?mode=ro&immutable=1": never written, no lock taken, no -wal
// or -shm file created, nothing in an existing -wal read (the caller warns
// when one is not empty). SQLITE_OPEN_NOMUTEX: a connection belongs to the
// one thread loading its rank, so SQLite's per-call mutex is not needed.
// Every SQLite error becomes a Status naming the
// file and, for a statement, the table it read.
//
// Bounded work: only tables are read (a view, whose query could recurse or
// build blobs without end, is "missing"); each statement runs under a
// progress handler that interrupts it past its deadline (kQueryDeadline from
// its first step), and SQLite's heap is capped process-wide
// (sqlite3_hard_heap_limit64, kHeapLimitBytes): a query that would need
// more fails with "out of memory" instead of growing the process.
//
// SQLite reads the file's pages with read(), not a memory map (the map's
// pages stayed in the resident set); a step that fails while the file is
// shorter than when it was opened fails as "the file shrank while it was
// read".
//
// Writing (OpenForWriting): a file trainscope creates (the caller's
// temporary file), read-write, without the deadline: an export's statements
// run as long as its rows take. Errors are I/O errors naming the file.
#pragma once

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "core/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace trainscope {

class SqliteStatement;

class SqliteDb {
 public:
  static constexpr std::chrono::seconds kQueryDeadline{600};
  static constexpr int64_t kHeapLimitBytes = int64_t{1} << 30;

  // Fails (kInvalidInput) when the file is not a database SQLite can open.
  static Result<SqliteDb> OpenReadOnly(const std::string& path);
  // Opens (creating when absent) the database |file| to write. Errors name
  // |shown_as| (the destination a temporary file stands for) and end with
  // |hint| ("hint: nothing was written to FILE").
  static Result<SqliteDb> OpenForWriting(const std::string& file, std::string shown_as,
                                         std::string hint);

  SqliteDb(SqliteDb&& other) noexcept;
  SqliteDb& operator=(SqliteDb&& other) noexcept;
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;
  ~SqliteDb();

  const std::string& path() const { return path_; }
  // Whether a table (not a view) of that exact name exists.
  Result<bool> HasTable(std::string_view table) const;
  // The table's column names (PRAGMA table_info), empty when it has none.
  Result<std::set<std::string>> Columns(std::string_view table) const;
  // |what| names the query in errors ("TASK").
  Result<SqliteStatement> Prepare(const std::string& sql, std::string_view what) const;
  // Runs |sql|, one or more statements that return no rows.
  Status Exec(const std::string& sql, std::string_view what) const;
  // Closes the connection (after its statements are gone); an error when
  // SQLite cannot, e.g. an unfinished statement.
  Status Close();
  // The time a statement may run from its first step (tests shorten it).
  void set_query_deadline(std::chrono::milliseconds deadline) { deadline_->limit = deadline; }

 private:
  // Heap-held so the progress handler's pointer survives a move.
  struct Deadline {
    std::chrono::milliseconds limit = kQueryDeadline;
    std::chrono::steady_clock::time_point end = std::chrono::steady_clock::time_point::max();
  };
  SqliteDb(std::string path, sqlite3* db, bool writable, std::string hint);
  Status Error(std::string_view what, int rc) const;
  std::string path_;
  sqlite3* db_ = nullptr;
  bool writable_ = false;
  std::string hint_;
  std::unique_ptr<Deadline> deadline_;
  int64_t opened_bytes_ = -1;  // a read-only database's size when opened
  friend class SqliteStatement;
};

class SqliteStatement {
 public:
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&& other) noexcept;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  ~SqliteStatement();

  // true: a row is ready; false: done. An error (a damaged page, a
  // malformed database, the deadline passed, the heap cap reached) is a
  // Status naming the file and the query.
  Result<bool> Step();
  // Rewinds the statement and binds |values| to its first parameters.
  Status Rebind(std::initializer_list<int64_t> values);

  // Writing: binds a value to a 1-based parameter (a parameter left unbound
  // is NULL), then Run inserts the row and clears the bindings.
  void BindInt64(int parameter, int64_t value);
  void BindDouble(int parameter, double value);
  void BindText(int parameter, std::string_view text);  // copied by SQLite
  void BindNull(int parameter);
  Status Run();

  bool IsNull(int column) const;
  // An integer cell: INTEGER as is, TEXT holding a decimal integer parsed;
  // nullopt for NULL, REAL, a blob or other text. Inline over a call that
  // returns a flag (an optional returned from a call goes through memory,
  // a store-forwarding stall in every cell: core/numbers.h).
  std::optional<int64_t> Int64(int column) const {
    int64_t value = 0;
    if (!IntegerCellValue(column, &value)) return std::nullopt;
    return value;
  }
  // A numeric cell as a double (INTEGER or REAL; TEXT parsed as a
  // decimal); nullopt for NULL, a blob or other text.
  std::optional<double> Double(int column) const;
  // The cell as text (SQLite's rendering for numbers); "" for NULL. Valid
  // until the next Step.
  std::string_view Text(int column) const;

  // The first |values.size()| cells at once, as Int64 and IsNull read them
  // (a wide row is read with one call per cell, not three).
  enum class CellKind : uint8_t { kInteger, kNull, kOther };
  void IntegerCells(std::span<int64_t> values, std::span<CellKind> kinds) const;

 private:
  friend class SqliteDb;
  // One cell as Int64 and IsNull read it: kInteger with *|out| set, kNull,
  // or kOther (a real, a blob, text that is not a decimal integer).
  CellKind IntegerCell(int column, int64_t* out) const;
  // IntegerCell out of line: true for kInteger.
  bool IntegerCellValue(int column, int64_t* out) const;
  SqliteStatement(const SqliteDb* db, sqlite3_stmt* stmt, std::string what)
      : db_(db), stmt_(stmt), what_(std::move(what)) {}
  const SqliteDb* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  std::string what_;
  std::chrono::steady_clock::time_point end_{};  // set by the first Step
  bool started_ = false;
};

// "file:<path>?mode=ro&immutable=1" with the characters a URI reserves
// ('?', '#', '%') percent-encoded.
std::string ReadOnlyUri(const std::string& path);

}  // namespace trainscope
