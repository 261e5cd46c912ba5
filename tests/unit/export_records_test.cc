// The exported records (export/records.h) are declared once: the database
// and the CSV files have exactly the declared columns, and docs/exports.md
// lists them with the same type and unit.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "analysis/job/rank_analysis.h"
#include "export/csv_export.h"
#include "export/records.h"
#include "export/sqlite_export.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

using exports::Column;
using exports::ColumnType;
using exports::Record;

// The text between "<!-- records: KIND -->" and "<!-- /records -->".
struct RecordsBlock {
  size_t begin = std::string::npos;  // after the opening marker's line
  size_t end = std::string::npos;    // at the closing marker
};

RecordsBlock FindRecordsBlock(const std::string& page, const std::string& kind) {
  RecordsBlock block;
  const std::string open = "<!-- records: " + kind + " -->\n";
  const size_t at = page.find(open);
  if (at == std::string::npos) return block;
  block.begin = at + open.size();
  block.end = page.find("<!-- /records -->", block.begin);
  if (block.end == std::string::npos) block.begin = std::string::npos;
  return block;
}

std::vector<Record> DocumentedSqliteRecords() {
  std::vector<Record> records(std::begin(exports::kSqliteTables), std::end(exports::kSqliteTables));
  records.push_back(exports::kFindingRowsView);
  return records;
}

TEST(ExportRecords, DocsListEveryDeclaredColumn) {
  const std::string path = SourceDir() + "/docs/exports.md";
  std::string page = ReadFileBytes(path);
  ASSERT_FALSE(page.empty()) << path;
  const bool update = std::getenv("TRAINSCOPE_UPDATE_GOLDEN") != nullptr;
  const std::vector<Record> sqlite = DocumentedSqliteRecords();
  const std::vector<Record> csv(std::begin(exports::kCsvFiles), std::end(exports::kCsvFiles));
  for (const auto& [kind, expected] :
       {std::pair{std::string("sqlite"), exports::RecordsMarkdown(sqlite, false)},
        std::pair{std::string("csv"), exports::RecordsMarkdown(csv, true)}}) {
    const RecordsBlock block = FindRecordsBlock(page, kind);
    ASSERT_NE(block.begin, std::string::npos)
        << "docs/exports.md has no records: " << kind << " block";
    if (update) {
      page.replace(block.begin, block.end - block.begin, expected);
      continue;
    }
    EXPECT_EQ(page.substr(block.begin, block.end - block.begin), expected)
        << "docs/exports.md (" << kind
        << " columns) differs from src/export/records.h; rewrite it with "
           "TRAINSCOPE_UPDATE_GOLDEN=1 build/ci/tests/trainscope_tests "
           "--gtest_filter='ExportRecords.*'";
  }
  if (update) WriteFileBytes(path, page);
}

// Every declared column appears in its record's doc table with its unit.
TEST(ExportRecords, EveryColumnIsDocumentedWithItsUnit) {
  const std::string page = ReadFileBytes(SourceDir() + "/docs/exports.md");
  const std::string block = [&] {
    const RecordsBlock b = FindRecordsBlock(page, "sqlite");
    return b.begin == std::string::npos ? std::string() : page.substr(b.begin, b.end - b.begin);
  }();
  ASSERT_FALSE(block.empty());
  const size_t kernels = block.find("### `kernels`");
  ASSERT_NE(kernels, std::string::npos);
  EXPECT_NE(block.find("| `start_ns` | integer (NOT NULL) | `ns` |", kernels), std::string::npos);
  for (const Record& record : exports::kSqliteTables) {
    const size_t heading = block.find("### `" + std::string(record.name) + "`");
    ASSERT_NE(heading, std::string::npos) << record.name;
    for (const Column& c : record.columns) {
      const std::string unit = c.unit.empty() ? "" : "`" + std::string(c.unit) + "`";
      EXPECT_NE(block.find("| `" + std::string(c.name) + "` |", heading), std::string::npos)
          << record.name << "." << c.name;
      EXPECT_NE(block.find(" | " + unit + " | " + std::string(c.description), heading),
                std::string::npos)
          << record.name << "." << c.name;
    }
  }
}

// Unit rule: a column named *_ns is in ns, *_us in µs, *_pct a percentage,
// share* a fraction, *_bytes / bytes in bytes.
TEST(ExportRecords, UnitsFollowTheNames) {
  auto check = [](const Record& record) {
    for (const Column& c : record.columns) {
      const std::string_view n = c.name;
      if (n.ends_with("_ns")) {
        EXPECT_EQ(c.unit, "ns") << record.name << "." << n;
      }
      if (n.ends_with("_us")) {
        EXPECT_EQ(c.unit, "us") << record.name << "." << n;
      }
      if (n.ends_with("_pct")) {
        EXPECT_EQ(c.unit, "pct") << record.name << "." << n;
      }
      if (n.starts_with("share")) {
        EXPECT_EQ(c.unit, "fraction") << record.name << "." << n;
      }
      if (n.ends_with("bytes")) {
        EXPECT_EQ(c.unit, "bytes") << record.name << "." << n;
      }
      if (n.ends_with("_gbps")) {
        EXPECT_EQ(c.unit, "GB/s") << record.name << "." << n;
      }
    }
  };
  for (const Record& record : DocumentedSqliteRecords()) check(record);
  for (const Record& record : exports::kCsvFiles) check(record);
}

std::string SqlTypeName(ColumnType type) {
  switch (type) {
    case ColumnType::kInteger:
      return "INTEGER";
    case ColumnType::kReal:
      return "REAL";
    case ColumnType::kText:
      return "TEXT";
  }
  return "?";
}

// (name, declared type) of a table's or view's columns in the database.
std::vector<std::pair<std::string, std::string>> TableInfo(sqlite3* db, std::string_view table) {
  std::vector<std::pair<std::string, std::string>> out;
  sqlite3_stmt* stmt = nullptr;
  const std::string sql = "PRAGMA table_info(" + std::string(table) + ")";
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK) {
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      const auto* name = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1));
      const auto* type = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 2));
      out.emplace_back(name ? name : "", type ? type : "");
    }
  }
  sqlite3_finalize(stmt);
  return out;
}

TEST(ExportRecords, DatabaseHasExactlyTheDeclaredTablesAndColumns) {
  const std::string path = MakeTempDir("export-records") + "/empty.db";
  Result<std::unique_ptr<exports::SqliteExport>> out = exports::SqliteExport::Open(path);
  ASSERT_TRUE(out.ok()) << out.status().message();
  const analysis::JobAnalysis job;
  ASSERT_TRUE((*out)->Finish(job, {}, "test").ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  std::set<std::string> tables;
  {
    sqlite3_stmt* stmt = nullptr;
    ASSERT_EQ(
        sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type IN ('table','view')", -1,
                           &stmt, nullptr),
        SQLITE_OK);
    while (sqlite3_step(stmt) == SQLITE_ROW)
      tables.emplace(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)));
    sqlite3_finalize(stmt);
  }
  std::set<std::string> declared;
  for (const Record& record : DocumentedSqliteRecords()) {
    declared.emplace(record.name);
    std::vector<std::pair<std::string, std::string>> expected;
    for (const Column& c : record.columns) expected.emplace_back(c.name, SqlTypeName(c.type));
    std::vector<std::pair<std::string, std::string>> actual = TableInfo(db, record.name);
    if (record.name == exports::kFindingRowsView.name) {
      // A view's columns have the type of their expression ("" for a CASE):
      // the names are what is declared.
      for (auto& column : actual) column.second.clear();
      for (auto& column : expected) column.second.clear();
    }
    EXPECT_EQ(actual, expected) << record.name;
  }
  EXPECT_EQ(tables, declared);
  // The schema version the meta table names.
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key='schema'", -1, &stmt, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)), exports::kSqliteSchema);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

TEST(ExportRecords, CsvHeadersAreTheDeclaredColumns) {
  const analysis::JobAnalysis job;
  const auto tables = exports::RenderCsvTables(job);
  ASSERT_EQ(tables.size(), std::size(exports::kCsvFiles));
  for (size_t i = 0; i < tables.size(); ++i) {
    const Record& record = exports::kCsvFiles[i];
    EXPECT_EQ(tables[i].first, std::string(record.name) + ".csv");
    std::string header;
    for (const Column& c : record.columns) {
      if (!header.empty()) header += ',';
      header += c.name;
    }
    // An empty job: the header row alone.
    EXPECT_EQ(tables[i].second, header + "\r\n") << record.name;
  }
}

TEST(ExportRecords, GeneratedStatements) {
  static constexpr Column kTwo[] = {
      {"a", ColumnType::kInteger, "", "NOT NULL", "first"},
      {"b_ns", ColumnType::kReal, "ns", "", "second"},
  };
  const Record two{"two", "two columns", kTwo};
  EXPECT_EQ(exports::CreateTableSql(two), "CREATE TABLE two(a INTEGER NOT NULL, b_ns REAL);");
  EXPECT_EQ(exports::InsertSql(two), "INSERT INTO two VALUES(?,?)");
  EXPECT_EQ(exports::CsvHeader(two), "a,b_ns");
  static_assert(exports::ColumnIndex(kTwo, "b_ns") == 1);
  EXPECT_EQ(exports::RecordsMarkdown(std::span(&two, 1), false),
            "### `two`\n\ntwo columns.\n\n| column | type | unit | meaning |\n|---|---|---|---|\n"
            "| `a` | integer (NOT NULL) |  | first |\n| `b_ns` | real | `ns` | second |\n\n");
}

}  // namespace
}  // namespace trainscope::testing
