// Runs SQL on a scratch database a test builds with the SQLite C API
// (trainscope itself reads databases only through core/sqlite_db).
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

namespace trainscope::testing {

// Runs |sql| (one or more statements) on |db|; a failure fails the test
// with SQLite's message and the statement.
inline void ExecSql(sqlite3* db, const std::string& sql) {
  char* error = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  const std::string message = error != nullptr ? error : "";
  sqlite3_free(error);
  ASSERT_EQ(rc, SQLITE_OK) << message << "\n" << sql;
}

}  // namespace trainscope::testing
