// A read-only SQLite database: the one place trainscope calls the SQLite C
// API (the Ascend .db export).
//
// Opened with SQLITE_OPEN_READONLY | SQLITE_OPEN_URI as
// "file:<path>?mode=ro&immutable=1": never written, no lock taken, no -wal
// or -shm file created, nothing in an existing -wal read (the caller warns
// when one is not empty). SQLITE_OPEN_NOMUTEX: a connection belongs to the
// one thread loading its rank, so SQLite's per-call mutex is not needed.
// Every SQLite error becomes a Status naming the
// file and, for a statement, the table it read.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "core/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace trainscope::formats {

class SqliteStatement;

class SqliteDb {
 public:
  // Fails (kInvalidInput) when the file is not a database SQLite can open.
  static Result<SqliteDb> OpenReadOnly(const std::string& path);

  SqliteDb(SqliteDb&& other) noexcept;
  SqliteDb& operator=(SqliteDb&& other) noexcept;
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;
  ~SqliteDb();

  const std::string& path() const { return path_; }
  // Whether a table (or view) of that exact name exists.
  Result<bool> HasTable(std::string_view table) const;
  // The table's column names (PRAGMA table_info), empty when it has none.
  Result<std::set<std::string>> Columns(std::string_view table) const;
  // |what| names the query in errors ("TASK").
  Result<SqliteStatement> Prepare(const std::string& sql, std::string_view what) const;

 private:
  SqliteDb(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}
  std::string path_;
  sqlite3* db_ = nullptr;
};

class SqliteStatement {
 public:
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&& other) noexcept;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  ~SqliteStatement();

  // true: a row is ready; false: done. An error (a damaged page, a
  // malformed database) is a Status naming the file and the query.
  Result<bool> Step();

  bool IsNull(int column) const;
  // An integer cell: INTEGER as is, TEXT holding a decimal integer parsed;
  // nullopt for NULL, REAL, a blob or other text.
  std::optional<int64_t> Int64(int column) const;
  // A numeric cell as a double (INTEGER or REAL; TEXT parsed as a
  // decimal); nullopt for NULL, a blob or other text.
  std::optional<double> Double(int column) const;
  // The cell as text (SQLite's rendering for numbers); "" for NULL. Valid
  // until the next Step.
  std::string_view Text(int column) const;

 private:
  friend class SqliteDb;
  SqliteStatement(const SqliteDb* db, sqlite3_stmt* stmt, std::string what)
      : db_(db), stmt_(stmt), what_(std::move(what)) {}
  const SqliteDb* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  std::string what_;
};

// "file:<path>?mode=ro&immutable=1" with the characters a URI reserves
// ('?', '#', '%') percent-encoded.
std::string ReadOnlyUri(const std::string& path);

}  // namespace trainscope::formats
