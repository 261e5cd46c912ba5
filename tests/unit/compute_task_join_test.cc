// ComputeTaskJoin (the .db reader's merge join of TASK and
// COMPUTE_TASK_INFO) against SQLite's own LEFT JOIN over the same
// database: tasks in rising, shuffled and jumping id order, ids asked
// twice, ids without compute info, negative and extreme ids, and a
// COMPUTE_TASK_INFO whose globalTaskId is not its key.
#include "formats/ascend_db/compute_task_join.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "formats/ascend_db/sqlite_db.h"
#include "test_paths.h"

namespace trainscope::formats {
namespace {

constexpr char kColumns[] =
    "c.globalTaskId, c.name, c.opType, c.taskType, c.blockDim, c.inputShapes, "
    "c.inputDataTypes, c.waitNs, c.outputShapes, c.outputDataTypes";

// A database with COMPUTE_TASK_INFO rows for |ids| (cells derived from the
// id, some NULL) and TASK rows asking for |asked| in that order.
std::string MakeDb(const std::vector<int64_t>& ids, const std::vector<int64_t>& asked, bool keyed) {
  const std::string path = testing::MakeTempDir("join") + "/p.db";
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  auto exec = [&](const std::string& sql) {
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sql;
  };
  exec("PRAGMA synchronous = OFF; BEGIN");
  exec(std::string("CREATE TABLE COMPUTE_TASK_INFO (name INTEGER, globalTaskId INTEGER") +
       (keyed ? " PRIMARY KEY" : "") +
       ", blockDim INTEGER, taskType INTEGER, opType INTEGER, inputDataTypes INTEGER, "
       "inputShapes INTEGER, outputDataTypes INTEGER, outputShapes INTEGER, waitNs INTEGER)");
  exec("CREATE TABLE TASK (startNs INTEGER, globalTaskId INTEGER)");
  for (int64_t id : ids) {
    const int64_t v = id % 1000;
    exec("INSERT INTO COMPUTE_TASK_INFO VALUES (" + std::to_string(v) + ", " + std::to_string(id) +
         ", " + (v % 3 == 0 ? std::string("NULL") : std::to_string(v + 1)) + ", " +
         std::to_string(v + 2) + ", " + std::to_string(v + 3) + ", " + std::to_string(v + 4) +
         ", " + std::to_string(v + 5) + ", " + std::to_string(v + 6) + ", " +
         std::to_string(v + 7) + ", " + std::to_string(v * 10) + ")");
  }
  for (size_t i = 0; i < asked.size(); ++i) {
    exec("INSERT INTO TASK VALUES (" + std::to_string(i) + ", " + std::to_string(asked[i]) + ")");
  }
  exec("COMMIT");
  sqlite3_close(db);
  return path;
}

std::vector<std::optional<int64_t>> Cells(const ComputeCells& c) {
  return {c.name,         c.op_type, c.task_type,     c.block_dim,    c.input_shapes,
          c.input_dtypes, c.wait_ns, c.output_shapes, c.output_dtypes};
}

// Every TASK row's cells as ComputeTaskJoin finds them equal SQLite's
// LEFT JOIN's; returns how many rows matched.
int64_t ExpectSameAsLeftJoin(const std::string& path) {
  Result<SqliteDb> db = SqliteDb::OpenReadOnly(path);
  EXPECT_TRUE(db.ok()) << db.status().message();
  if (!db.ok()) return -1;
  Result<ComputeTaskJoin> join = ComputeTaskJoin::Open(*db, kColumns);
  EXPECT_TRUE(join.ok()) << join.status().message();
  if (!join.ok()) return -1;
  Result<SqliteStatement> expected = db->Prepare(
      std::string("SELECT t.globalTaskId, ") + kColumns +
          " FROM TASK t LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId "
          "ORDER BY t.rowid",
      "expected");
  EXPECT_TRUE(expected.ok());
  int64_t matched = 0;
  for (int64_t row = 1;; ++row) {
    Result<bool> more = expected->Step();
    EXPECT_TRUE(more.ok());
    if (!more.ok() || !*more) break;
    const int64_t id = *expected->Int64(0);
    Result<const ComputeCells*> found = join->Find(id);
    EXPECT_TRUE(found.ok()) << found.status().message();
    if (!found.ok()) return -1;
    if (expected->IsNull(1)) {
      EXPECT_EQ(*found, nullptr) << "task row " << row << " id " << id;
      continue;
    }
    EXPECT_NE(*found, nullptr) << "task row " << row << " id " << id;
    if (*found == nullptr) continue;
    ++matched;
    const std::vector<std::optional<int64_t>> got = Cells(**found);
    for (size_t k = 0; k < got.size(); ++k) {
      EXPECT_EQ(got[k], expected->Int64(static_cast<int>(k) + 2))
          << "task row " << row << " id " << id << " cell " << k;
    }
  }
  return matched;
}

std::vector<int64_t> Range(int64_t first, int64_t count) {
  std::vector<int64_t> ids(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) ids[static_cast<size_t>(i)] = first + i;
  return ids;
}

TEST(ComputeTaskJoin, RisingIdsWithHcclTasksBetween) {
  std::vector<int64_t> ids;
  std::vector<int64_t> asked;
  for (int64_t id = 0; id < 3000; ++id) {
    asked.push_back(id);
    if (id % 7 != 3) ids.push_back(id);  // every 7th task has no compute info
  }
  EXPECT_EQ(ExpectSameAsLeftJoin(MakeDb(ids, asked, true)), static_cast<int64_t>(ids.size()));
}

TEST(ComputeTaskJoin, ShuffledLocallyAndFarJumpsAndRepeats) {
  const std::vector<int64_t> ids = Range(0, 20000);
  std::vector<int64_t> asked = Range(0, 20000);
  std::mt19937 random(7);
  // Local disorder, as the corpus's TASK (a later id a few rows early).
  for (size_t i = 0; i + 8 < asked.size(); i += 8) {
    std::shuffle(asked.begin() + static_cast<std::ptrdiff_t>(i),
                 asked.begin() + static_cast<std::ptrdiff_t>(i + 8), random);
  }
  // A jump far ahead, the skipped ids asked afterwards; repeats; ids
  // nobody has; the extremes of int64.
  std::rotate(asked.begin() + 1000, asked.begin() + 15000, asked.begin() + 16000);
  asked.push_back(42);
  asked.push_back(19999);
  asked.push_back(-5);
  asked.push_back(1'000'000);
  asked.push_back(std::numeric_limits<int64_t>::min());
  asked.push_back(std::numeric_limits<int64_t>::max());
  asked.push_back(7);
  EXPECT_EQ(ExpectSameAsLeftJoin(MakeDb(ids, asked, true)), 20003);
}

TEST(ComputeTaskJoin, ReversedOrder) {
  std::vector<int64_t> asked = Range(-50, 5000);
  std::reverse(asked.begin(), asked.end());
  EXPECT_EQ(ExpectSameAsLeftJoin(MakeDb(Range(-100, 4000), asked, true)), 3950);
}

TEST(ComputeTaskJoin, GlobalTaskIdNotTheKey) {
  std::vector<int64_t> ids = Range(0, 2000);
  std::shuffle(ids.begin(), ids.end(), std::mt19937(3));
  std::vector<int64_t> asked = Range(-10, 2100);
  asked.push_back(5);
  EXPECT_EQ(ExpectSameAsLeftJoin(MakeDb(ids, asked, false)), 2001);
}

}  // namespace
}  // namespace trainscope::formats
