// The .db reader's tiled scan (formats/ascend_db/db_tiled_scan.h): decoded
// on several connections, the rows, their cells and their order are those
// of one statement over the whole table, and a step that fails ends the scan
// after the same rows.
#include "formats/ascend_db/db_tiled_scan.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <vector>

#include "sqlite_exec.h"
#include "test_paths.h"

namespace trainscope::formats::ascend_db {
namespace {

namespace fs = std::filesystem;

// T(a, b, c) of |rows| rows: integers, NULLs, numeric and other text and
// reals in b; every 7th row deleted (gaps in the rowids); |extra| run last.
std::string MakeTable(const std::string& name, int rows, const std::string& extra = "") {
  const fs::path path = fs::path(testing::MakeTempDir(name)) / "t.db";
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  testing::ExecSql(db, "PRAGMA synchronous = OFF");
  testing::ExecSql(db, "CREATE TABLE T (a INTEGER, b, c INTEGER)");
  testing::ExecSql(db, "CREATE TABLE U (id INTEGER PRIMARY KEY, v INTEGER)");
  testing::ExecSql(
      db, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < " +
              std::to_string(rows) +
              ") INSERT INTO T SELECT i * 3, CASE i % 5 WHEN 0 THEN NULL WHEN 1 THEN 'x' || i "
              "WHEN 2 THEN '' || (i * 2) WHEN 3 THEN i + 0.5 ELSE i END, i FROM n");
  testing::ExecSql(db, "INSERT INTO U SELECT c, c * 10 FROM T WHERE c % 3 = 0");
  testing::ExecSql(db, "DELETE FROM T WHERE rowid % 7 = 0");
  if (!extra.empty()) testing::ExecSql(db, extra);
  sqlite3_close(db);
  return path.string();
}

struct Cell {
  std::optional<int64_t> value;
  bool null = false;
  std::string text;
  bool operator==(const Cell&) const = default;
};

struct Scanned {
  std::vector<std::vector<Cell>> rows;
  Status status = Status::Ok();
  bool parallel = false;
};

constexpr char kSelect[] = "SELECT t.a, t.b, u.v FROM T t LEFT JOIN U u ON u.id = t.c";

Scanned Scan(const std::string& path, unsigned threads, const std::string& select = kSelect) {
  Scanned out;
  Result<SqliteDb> db = SqliteDb::OpenReadOnly(path);
  EXPECT_TRUE(db.ok()) << db.status().message();
  if (!db.ok()) return out;
  Result<SqliteStatement> count = db->Prepare("SELECT count(*) FROM T", "T");
  EXPECT_TRUE(count.ok() && count->Step().ok());
  const int64_t rows = count->Int64(0).value_or(0);
  DbReadOptions options;
  options.threads = threads;
  options.parallel_rows = 1;
  options.tile_rows = 64;  // many tiles, more than the window
  const std::unique_ptr<TiledScan> scan =
      TiledScan::Start(*db, select, "T", "t.rowid", 3, rows, options);
  out.parallel = scan != nullptr;
  if (scan == nullptr) return out;
  while (const RowTile* tile = scan->Next()) {
    for (size_t i = 0; i < tile->rows(); ++i) {
      const RowTile::Row row = tile->row(i);
      std::vector<Cell>& cells = out.rows.emplace_back();
      for (int c = 0; c < 3; ++c) cells.push_back({row.Int64(c), row.IsNull(c), row.Text(c)});
    }
    if (!tile->status().ok()) out.status = tile->status();
  }
  return out;
}

// What one statement over the table reads, through SqliteStatement itself.
Scanned Direct(const std::string& path, const std::string& select = kSelect) {
  Scanned out;
  Result<SqliteDb> db = SqliteDb::OpenReadOnly(path);
  Result<SqliteStatement> stmt = db->Prepare(select, "T");
  for (;;) {
    Result<bool> row = stmt->Step();
    if (!row.ok()) out.status = row.status();
    if (!row.ok() || !*row) break;
    std::vector<Cell>& cells = out.rows.emplace_back();
    for (int c = 0; c < 3; ++c) {
      cells.push_back(
          {stmt->Int64(c), stmt->IsNull(c),
           stmt->Int64(c) ? std::to_string(*stmt->Int64(c)) : std::string(stmt->Text(c))});
    }
  }
  return out;
}

TEST(DbTiledScan, ParallelTilesReadTheRowsOfOneStatementInOrder) {
  const std::string path = MakeTable("tiled-scan", 5000);
  const std::vector<std::vector<Cell>> direct = Direct(path).rows;
  ASSERT_EQ(direct.size(), 5000u - 5000u / 7);
  EXPECT_FALSE(Scan(path, 1).parallel);  // one thread: the caller's statement
  for (const unsigned threads : {2u, 3u}) {
    const Scanned tiled = Scan(path, threads);
    EXPECT_TRUE(tiled.parallel) << threads;
    EXPECT_TRUE(tiled.status.ok()) << tiled.status.message();
    EXPECT_EQ(tiled.rows, direct) << threads << " threads";
  }
  // The cells keep their kinds: text that is not a number, NULL, a real.
  EXPECT_EQ(direct[0][1].text, "x1");
  EXPECT_FALSE(direct[0][1].value);
  EXPECT_EQ(direct[1][1].value, 4);  // '4': numeric text reads as the integer
  EXPECT_EQ(direct[2][1].text, "3.5");
  EXPECT_TRUE(direct[4][1].null);
  EXPECT_FALSE(direct[0][2].value);  // no U row: the joined cell is NULL
  EXPECT_EQ(direct[2][2].value, 30);
}

TEST(DbTiledScan, SparseRowidsAreLeftToOneStatement) {
  // One rowid far past the others: tiles by rowid would be mostly empty.
  const std::string path = MakeTable("tiled-scan-sparse", 500,
                                     "INSERT INTO T(rowid, a, b, c) VALUES (1000000000, 1, 2, 3)");
  EXPECT_FALSE(Scan(path, 2).parallel);
  EXPECT_TRUE(Scan(MakeTable("tiled-scan-dense", 500), 2).parallel);
  // Both ends of the int64 range (a hostile table): their distance does
  // not fit an int64, and still reads as too sparse.
  const std::string ends =
      MakeTable("tiled-scan-ends", 500,
                "INSERT INTO T(rowid, a, b, c) VALUES (-9223372036854775807 - 1, 1, 2, 3), "
                "(9223372036854775807, 4, 5, 6)");
  EXPECT_FALSE(Scan(ends, 2).parallel);
}

TEST(DbTiledScan, AColumnNamedLikeTheRowidIsLeftToOneStatement) {
  // "rowid BETWEEN" would filter on the column, not on the rowid.
  for (const std::string name : {"rowid", "OID", "_RowId_"}) {
    const std::string path =
        MakeTable("tiled-scan-alias", 500, "ALTER TABLE T ADD COLUMN " + name + " INTEGER");
    EXPECT_FALSE(Scan(path, 2).parallel) << name;
  }
}

TEST(DbTiledScan, AFailedStepEndsTheScanAfterTheSameRows) {
  // abs() of the smallest integer overflows: the statement fails on that
  // row, whichever connection decodes its tile.
  const std::string path = MakeTable(
      "tiled-scan-error", 3000, "UPDATE T SET c = -9223372036854775807 - 1 WHERE rowid = 2001");
  const std::string select = "SELECT t.a, t.b, abs(t.c) FROM T t";
  const Scanned direct = Direct(path, select);
  ASSERT_FALSE(direct.status.ok());
  EXPECT_NE(direct.status.message().find("integer overflow"), std::string::npos)
      << direct.status.message();
  EXPECT_EQ(direct.rows.size(), 2000u - 2000u / 7);
  for (const unsigned threads : {2u, 3u}) {
    const Scanned tiled = Scan(path, threads, select);
    EXPECT_TRUE(tiled.parallel);
    EXPECT_EQ(tiled.status.message(), direct.status.message());
    EXPECT_EQ(tiled.rows, direct.rows) << threads << " threads";
  }
}

}  // namespace
}  // namespace trainscope::formats::ascend_db
