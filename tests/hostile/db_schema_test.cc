// Hostile .db exports (docs/hostile-input.md, "SQLite databases"): only
// tables are read (a view named like a table, whose query could recurse
// forever or build gigabytes of blobs, is a missing table); a query runs
// under a deadline and SQLite's heap is capped; a step lookup is
// logarithmic; a file that cannot be opened says the system's reason.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "core/sqlite_db.h"
#include "formats/ascend_db/ascend_db_reader.h"
#include "hostile/hostile_util.h"
#include "sqlite_exec.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

namespace fs = std::filesystem;

// A rank directory whose ascend_pytorch_profiler_0.db holds |statements|.
fs::path MakeDbRank(const std::string& tag, const std::vector<std::string>& statements) {
  const fs::path rank = fs::path(MakeTempDir(tag)) / "rank_0_ascend_pt";
  const fs::path out = rank / "ASCEND_PROFILER_OUTPUT";
  fs::create_directories(out);
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open((out / "ascend_pytorch_profiler_0.db").c_str(), &db), SQLITE_OK);
  ExecSql(db, "PRAGMA synchronous = OFF");
  for (const std::string& sql : statements) ExecSql(db, sql);
  sqlite3_close(db);
  return rank;
}

const char kStringIds[] = "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT)";
const char kComputeTaskInfo[] =
    "CREATE TABLE COMPUTE_TASK_INFO (name INTEGER, globalTaskId INTEGER PRIMARY KEY, opType "
    "INTEGER, taskType INTEGER)";

double DbSecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(HostileDbSchema, ARecursiveViewNamedTaskIsAMissingTableNotAHang) {
  const fs::path rank = MakeDbRank(
      "db-view-task",
      {kStringIds, kComputeTaskInfo,
       "CREATE VIEW TASK AS WITH RECURSIVE r(startNs) AS (SELECT 1 UNION ALL SELECT startNs + 1 "
       "FROM r) SELECT startNs, startNs AS endNs, startNs AS globalTaskId FROM r"});
  const auto start = std::chrono::steady_clock::now();
  Result<model::RankProfile> loaded = formats::LoadAscendDbRank(rank.string());
  EXPECT_LT(DbSecondsSince(start), 30.0);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("table TASK missing"), std::string::npos)
      << loaded.status().message();
  EXPECT_NE(loaded.status().message().find("hint:"), std::string::npos);
}

TEST(HostileDbSchema, AStringIdsViewOfHugeBlobsIsNeverRead) {
  const fs::path rank = MakeDbRank(
      "db-view-strings",
      {"CREATE VIEW STRING_IDS AS WITH RECURSIVE r(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM "
       "r WHERE id < 100000) SELECT id, zeroblob(100000000) AS value FROM r"});
  Result<model::RankProfile> loaded = formats::LoadAscendDbRank(rank.string());
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("table STRING_IDS missing"), std::string::npos)
      << loaded.status().message();
}

TEST(HostileDbSchema, AQueryPastItsDeadlineIsStopped) {
  const fs::path rank = MakeDbRank("db-deadline", {kStringIds});
  const fs::path path = rank / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db";
  Result<SqliteDb> db = SqliteDb::OpenReadOnly(path.string());
  ASSERT_TRUE(db.ok()) << db.status().message();
  db->set_query_deadline(std::chrono::milliseconds(200));
  Result<SqliteStatement> stmt = db->Prepare(
      "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT count(*) FROM r",
      "endless");
  ASSERT_TRUE(stmt.ok()) << stmt.status().message();
  const auto start = std::chrono::steady_clock::now();
  Result<bool> row = stmt->Step();
  EXPECT_LT(DbSecondsSince(start), 10.0);
  ASSERT_FALSE(row.ok());
  EXPECT_NE(row.status().message().find("endless: query stopped at its deadline"),
            std::string::npos)
      << row.status().message();
  // SQLite's heap is capped for the process once a database is opened.
  EXPECT_GT(sqlite3_hard_heap_limit64(-1), 0);
  EXPECT_LE(sqlite3_hard_heap_limit64(-1), SqliteDb::kHeapLimitBytes);
}

TEST(HostileDbSchema, OverlappingStepRangesGiveTheFirstRangeByStart) {
  // Steps 1 [0, 1000], 2 [100, 200] (inside 1), 3 [1500, 2500], 4 [2000, 3000]; tasks at
  // 150 (in 1 and 2: step 1, the first by start), 1200 (none), 2200 (3 and 4: step 3), 2800 (4).
  const fs::path rank = MakeDbRank(
      "db-steps",
      {kStringIds, "INSERT INTO STRING_IDS VALUES (1, 'k'), (2, 'AI_CORE')", kComputeTaskInfo,
       "INSERT INTO COMPUTE_TASK_INFO VALUES (1, 1, 1, 2), (1, 2, 1, 2), (1, 3, 1, 2), "
       "(1, 4, 1, 2)",
       "CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, globalTaskId INTEGER)",
       "INSERT INTO TASK VALUES (150, 160, 1), (1200, 1210, 2), (2200, 2210, 3), (2800, 2810, 4)",
       "CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER)",
       "INSERT INTO STEP_TIME VALUES (3, 1500, 2500), (2, 100, 200), (4, 2000, 3000), "
       "(1, 0, 1000)"});
  Result<model::RankProfile> loaded = formats::LoadAscendDbRank(rank.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const model::DeviceEvents& events = loaded->device_events;
  ASSERT_EQ(events.size(), 4u);
  std::vector<int32_t> steps;
  for (size_t i = 0; i < events.size(); ++i) steps.push_back(events.step[i]);
  EXPECT_EQ(steps, (std::vector<int32_t>{1, model::kNoStep, 3, 4}));
}

TEST(HostileDbSchema, ManyStepsAndTasksLoadInLinearithmicTime) {
  // 100k steps x 200k tasks took 11.6 s with a scan of the steps per task.
  const fs::path rank = MakeDbRank(
      "db-many-steps",
      {kStringIds, "INSERT INTO STRING_IDS VALUES (1, 'k'), (2, 'AI_CORE')", kComputeTaskInfo,
       "CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, globalTaskId INTEGER)",
       "CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER)",
       "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000) "
       "INSERT INTO STEP_TIME SELECT i, i * 1000, i * 1000 + 999 FROM n",
       "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000) "
       "INSERT INTO TASK SELECT i * 500, i * 500 + 10, i FROM n",
       "INSERT INTO COMPUTE_TASK_INFO SELECT 1, globalTaskId, 1, 2 FROM TASK"});
  const auto start = std::chrono::steady_clock::now();
  Result<model::RankProfile> loaded = formats::LoadAscendDbRank(rank.string());
  const double seconds = DbSecondsSince(start);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ASSERT_EQ(loaded->device_events.size(), 200000u);
  // Task i starts at i * 500 ns: in step i / 2 (steps are [k * 1000, k * 1000 + 999]).
  for (size_t i = 1; i < loaded->device_events.size(); i += 997) {
    const int64_t t = loaded->device_events.start_ns[i];
    EXPECT_EQ(loaded->device_events.step[i], static_cast<int32_t>(t / 1000)) << t;
  }
  EXPECT_LT(seconds, 10.0);
}

TEST(HostileDbSchema, UnusedStringIdsRowsAreNeverRead) {
  // Millions of STRING_IDS rows no table refers to took a gigabyte when the table was read
  // whole; they are now never read: the ledger counts the two strings the one kernel uses.
  const fs::path rank = MakeDbRank(
      "db-unused-strings",
      {kStringIds,
       "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500000) "
       "INSERT INTO STRING_IDS SELECT i, printf('unused_%d', i) FROM n",
       "INSERT INTO STRING_IDS VALUES (600001, 'MatMul_0'), (600002, 'AI_CORE')", kComputeTaskInfo,
       "INSERT INTO COMPUTE_TASK_INFO VALUES (600001, 1, NULL, 600002)",
       "CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, globalTaskId INTEGER)",
       "INSERT INTO TASK VALUES (100, 200, 1)"});
  Result<model::RankProfile> loaded = formats::LoadAscendDbRank(rank.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ASSERT_EQ(loaded->device_events.size(), 1u);
  EXPECT_EQ(loaded->strings.Get(loaded->device_events.name[0]), "MatMul_0");
  const RowLedger* strings = nullptr;
  for (const RowLedger& ledger : loaded->ledgers) {
    if (ledger.file().ends_with(":STRING_IDS")) strings = &ledger;
  }
  ASSERT_NE(strings, nullptr);
  EXPECT_EQ(strings->rows_read(), 2);
  EXPECT_TRUE(strings->Balanced());
}

// A database that cannot be opened says the system's reason.
TEST(HostileDbSchema, DanglingLinkOrLoopSaysWhy) {
  const fs::path rank = fs::path(MakeTempDir("db-links")) / "rank_0_ascend_pt";
  const fs::path out = rank / "ASCEND_PROFILER_OUTPUT";
  fs::create_directories(out);
  const fs::path db = out / "ascend_pytorch_profiler_0.db";
  fs::create_symlink(out / "gone.db", db);
  Result<model::RankProfile> loaded = formats::LoadAscendDbRank(rank.string());
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find(
                "ascend_pytorch_profiler_0.db: dangling symbolic link (its target does not exist)"),
            std::string::npos)
      << loaded.status().message();
  EXPECT_EQ(loaded.status().message().find("not a SQLite database"), std::string::npos);

  fs::remove(db);
  fs::create_symlink(db, db);  // a link to itself: a loop
  loaded = formats::LoadAscendDbRank(rank.string());
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("Too many levels of symbolic links"), std::string::npos)
      << loaded.status().message();
}

TEST(HostileDbSchema, UnreadableDatabaseSaysPermissionDenied) {
  if (!CanDropPrivileges()) GTEST_SKIP() << "running as root without setpriv";
  const fs::path rank = MakeDbRank("db-mode-000", {kStringIds});
  fs::permissions(rank.parent_path(), fs::perms::all);
  fs::permissions(rank, fs::perms::all);
  fs::permissions(rank / "ASCEND_PROFILER_OUTPUT", fs::perms::all);
  fs::permissions(rank / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db",
                  fs::perms::none);
  const CommandResult run =
      RunUnprivileged(rank.parent_path().string(), "analyze rank_0_ascend_pt --no-color");
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(Contains(run.err, "ascend_pytorch_profiler_0.db: cannot open: Permission denied"))
      << run.err;
  EXPECT_FALSE(Contains(run.err, "not a SQLite database")) << run.err;
}

}  // namespace
}  // namespace trainscope::testing
