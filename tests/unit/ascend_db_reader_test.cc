// The .db export reader on hand-made databases, built here with the SQLite C
// API from the schema torch_npu writes (docs/ingest.md "The .db export",
// /work/shared/docs/ascend-formats.md): kernels, communication ops, steps,
// rank, per-table ledgers; damaged and foreign databases fail that rank with
// the file, the table and a hint; the file is never modified.
#include "formats/ascend_db/ascend_db_reader.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/step/launch_gaps.h"
#include "analysis/step/memory_usage.h"
#include "analysis/step/step_budget.h"
#include "formats/importer_registry.h"
#include "formats/load_profiles.h"
#include "sqlite_exec.h"
#include "test_paths.h"

namespace trainscope::formats {
namespace {

namespace fs = std::filesystem;

void MakeDb(const fs::path& path, const std::vector<std::string>& statements) {
  fs::create_directories(path.parent_path());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  testing::ExecSql(db, "PRAGMA synchronous = OFF");  // a scratch file: no fsync per statement
  for (const std::string& sql : statements) testing::ExecSql(db, sql);
  sqlite3_close(db);
}

// The tables of ascend_pytorch_profiler_<rank>.db as torch_npu 2.x writes
// them (the optional waitNs / mixBlockDim / depth columns of newer versions
// left out: the reader must not need them). |without| drops one table.
std::vector<std::string> ProfilerDb(const std::string& without = "",
                                    const std::string& task_start = "startNs") {
  std::vector<std::string> sql = {
      "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT)",
      "INSERT INTO STRING_IDS VALUES (1,'aclnnMatmul_MatMulV2_0'),(2,'MatMulV2'),(3,'AI_CORE'),"
      "(4,'\"4096,2048;2048,8192\"'),(5,'FLOAT16;FLOAT16'),(6,'hcom_allReduce__1_0_1'),"
      "(7,'hcom_allReduce_'),(8,'EVENT_RECORD'),(9,'KERNEL_AICORE'),(10,'Notify Wait'),"
      "(11,'trans_TransData_0'),(12,'AI_VECTOR_CORE'),(13,'N/A'),(14,'group_name_19')",
      "CREATE TABLE TASK (" + task_start +
          " INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, globalTaskId "
          "INTEGER, globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER, "
          "taskId INTEGER, modelId INTEGER)",
      // start, end, device, globalTaskId, taskType, stream
      "INSERT INTO TASK VALUES (1000,1500,0,1,10,7,9,0,2,1,0),"  // matmul, step 1
      "(1600,1700,0,2,11,7,9,0,2,2,0),"                          // TransData (type N/A), step 1
      "(1800,1810,0,3,12,7,8,0,2,3,0),"                          // EVENT_RECORD: not a kernel
      "(2000,2100,0,4,13,7,10,0,5,4,0),"                         // HCCL notify: plane task
      "(6000,6500,0,5,14,7,9,0,2,5,0),"                          // matmul, step 2
      "(7000,NULL,0,6,15,7,9,0,2,6,0),"                          // no end
      "(8000,7000,0,7,16,7,9,0,2,7,0),"                          // ends before it starts
      "(9500,9600,0,8,17,7,9,0,2,8,0)",                          // after the steps, name id 99
      "CREATE TABLE COMPUTE_TASK_INFO (name INTEGER, globalTaskId INTEGER PRIMARY KEY, blockDim "
      "INTEGER, taskType INTEGER, opType INTEGER, inputFormats INTEGER, inputDataTypes INTEGER, "
      "inputShapes INTEGER, outputFormats INTEGER, outputDataTypes INTEGER, outputShapes "
      "INTEGER, attrInfo INTEGER)",
      "INSERT INTO COMPUTE_TASK_INFO VALUES (1,10,24,3,2,0,5,4,0,0,0,0),"
      "(11,11,8,12,13,0,NULL,NULL,0,0,0,0),(1,14,24,3,2,0,5,4,0,0,0,0),"
      "(1,15,24,3,2,0,5,4,0,0,0,0),(1,16,24,3,2,0,5,4,0,0,0,0),(99,17,1,3,2,0,NULL,NULL,0,0,0,0)",
      "CREATE TABLE COMMUNICATION_TASK_INFO (name INTEGER, globalTaskId INTEGER, taskType "
      "INTEGER, planeId INTEGER, groupName INTEGER, opId INTEGER)",
      "INSERT INTO COMMUNICATION_TASK_INFO VALUES (6,13,10,0,0,1)",
      "CREATE TABLE COMMUNICATION_OP (opName INTEGER, startNs INTEGER, endNs INTEGER, "
      "connectionId INTEGER, groupName INTEGER, opId INTEGER PRIMARY KEY, relay INTEGER, retry "
      "INTEGER, dataType INTEGER, algType INTEGER, count NUMERIC, opType INTEGER, waitNs "
      "INTEGER)",
      "INSERT INTO COMMUNICATION_OP VALUES (6,1400,3000,9,14,1,0,0,4,0,4096,7,50),"
      "(6,6400,8000,10,14,2,0,0,4,0,4096,7,0)",
      "CREATE TABLE ENUM_HCCL_DATA_TYPE (id INTEGER PRIMARY KEY, name TEXT)",
      "INSERT INTO ENUM_HCCL_DATA_TYPE VALUES (0,'INT8'),(3,'FP16'),(4,'FP32'),(65534,'N/A')",
      "CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER)",
      "INSERT INTO STEP_TIME VALUES (2,5001,9000),(1,1000,5000)",
      "CREATE TABLE RANK_DEVICE_MAP (rankId INTEGER, deviceId INTEGER)",
      "INSERT INTO RANK_DEVICE_MAP VALUES (3,5)",
      "CREATE TABLE META_DATA (name TEXT, value TEXT)",
      "INSERT INTO META_DATA VALUES ('SCHEMA_VERSION','1.0.0'),"
      "('ENV_VARIABLES','{\"HCCL_CONNECT_TIMEOUT\": \"1200\"}')",
  };
  if (!without.empty()) {
    sql.push_back("DROP TABLE " + without);
  }
  return sql;
}

std::vector<std::string> AnalysisDb() {
  return {
      "CREATE TABLE StepTraceTime (step TEXT, computing NUMERIC, communication_not_overlapped "
      "NUMERIC, overlapped NUMERIC, communication NUMERIC, free NUMERIC, stage NUMERIC, bubble "
      "NUMERIC, communication_not_overlapped_and_exclude_receive NUMERIC, preparing NUMERIC)",
      "INSERT INTO StepTraceTime VALUES ('1',0.6,1.5,0.1,1.6,0.9,4.0,0,1.5,0.25)",
      "CREATE TABLE CommAnalyzerTime (hccl_op_name TEXT, group_name TEXT, start_timestamp "
      "NUMERIC, elapse_time NUMERIC, transit_time NUMERIC, wait_time NUMERIC, "
      "synchronization_time NUMERIC, idle_time NUMERIC, step TEXT, type TEXT)",
      "INSERT INTO CommAnalyzerTime VALUES ('hcom_allReduce__1_0_1','77',1.4,0.0016,0.0005,"
      "0.0015,0.0005,-1,'step1','collective')",
      "CREATE TABLE CommAnalyzerBandwidth (hccl_op_name TEXT, group_name TEXT, transport_type "
      "TEXT, transit_size NUMERIC, transit_time NUMERIC, bandwidth NUMERIC, large_packet_ratio "
      "NUMERIC, package_size NUMERIC, count NUMERIC, total_duration NUMERIC, step TEXT, type "
      "TEXT)",
      "INSERT INTO CommAnalyzerBandwidth VALUES "
      "('hcom_allReduce__1_0_1','77','HCCS',2.5,0.5,5.0,0,2,1,0.4,'step1','collective'),"
      "('hcom_allReduce__1_0_1','77','HCCS',2.5,0.5,5.0,0,0.5,1,0.1,'step1','collective'),"
      "('hcom_allReduce__1_0_1','77','SDMA',0,0,0,0,0,0,0,'step1','collective')",
      "CREATE TABLE CommAnalyzerMatrix (hccl_op_name TEXT, group_name TEXT, src_rank TEXT, "
      "dst_rank TEXT, transport_type TEXT, transit_size NUMERIC, transit_time NUMERIC, bandwidth "
      "NUMERIC, step TEXT, type TEXT, op_name TEXT)",
      "INSERT INTO CommAnalyzerMatrix VALUES ('allreduce-top1','77','0','1','HCCS',2.5,0.5,5.0,"
      "'step1','collective','hcom_allReduce__1_0_1'),('allreduce-top1','77','x','1','HCCS',1,1,"
      "1,'step1','collective','hcom_allReduce__1_0_1')",
  };
}

// rank_3_ascend_pt/ASCEND_PROFILER_OUTPUT/{ascend_pytorch_profiler_3.db, analysis.db}
fs::path MakeRank(const std::string& tag, const std::vector<std::string>& profiler_db) {
  const fs::path rank = fs::path(testing::MakeTempDir(tag)) / "rank_3_ascend_pt";
  MakeDb(rank / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_3.db", profiler_db);
  MakeDb(rank / "ASCEND_PROFILER_OUTPUT" / "analysis.db", AnalysisDb());
  return rank;
}

const RowLedger* LedgerOf(const model::RankProfile& profile, std::string_view table) {
  for (const RowLedger& ledger : profile.ledgers) {
    if (ledger.file().ends_with(":" + std::string(table))) return &ledger;
  }
  return nullptr;
}

TEST(AscendDbReaderTest, ReadsKernelsCommunicationStepsAndRank) {
  const fs::path rank = MakeRank("ascend_db", ProfilerDb());
  Result<model::RankProfile> loaded = LoadAscendDbRank(rank.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const model::RankProfile& p = *loaded;
  EXPECT_EQ(p.rank, 3);
  EXPECT_EQ(p.info.env.at("HCCL_CONNECT_TIMEOUT"), "1200");
  EXPECT_EQ(p.device_events_source, model::DeviceEventsSource::kKernelDetailsCsv);
  EXPECT_EQ(p.steps_from, "STEP_TIME table of ascend_pytorch_profiler_3.db");

  const model::DeviceEvents& e = p.device_events;
  ASSERT_EQ(e.size(), 6u);  // 4 kernels + 2 communication ops
  EXPECT_EQ(e.Steps(), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(e.RowsOf(1).size(), 3u);
  EXPECT_EQ(e.RowsOf(2).size(), 2u);
  // Sorted by start: matmul 1000, hcom 1400, TransData 1600, matmul 6000, hcom 6400, 9500.
  EXPECT_EQ(p.strings.Get(e.name[0]), "aclnnMatmul_MatMulV2_0");
  EXPECT_EQ(p.strings.Get(e.op_type[0]), "MatMulV2");
  EXPECT_EQ(p.strings.Get(e.accelerator[0]), "AI_CORE");
  EXPECT_EQ(p.strings.Get(e.tensors_of(0).input_shapes), "4096,2048;2048,8192");
  EXPECT_EQ(p.strings.Get(e.tensors_of(0).input_dtypes), "FLOAT16;FLOAT16");
  EXPECT_EQ(e.block_dim[0], 24);
  EXPECT_EQ(e.stream[0], 2);
  EXPECT_EQ(e.device[0], 0);
  EXPECT_EQ(e.start_ns[0], 1000);
  EXPECT_EQ(e.duration_ns[0], 500);
  EXPECT_EQ(e.kind[0], model::ActivityKind::kCompute);

  EXPECT_EQ(p.strings.Get(e.name[1]), "hcom_allReduce__1_0_1");
  EXPECT_EQ(p.strings.Get(e.op_type[1]), "hcom_allReduce_");
  EXPECT_EQ(p.strings.Get(e.accelerator[1]), "HCCL");
  EXPECT_EQ(e.kind[1], model::ActivityKind::kCommunication);
  EXPECT_EQ(e.duration_ns[1], 1600);
  EXPECT_EQ(e.wait_ns[1], 50);
  EXPECT_EQ(e.device[1], 5);  // RANK_DEVICE_MAP's device
  EXPECT_EQ(e.step[1], 1);

  EXPECT_EQ(p.strings.Get(e.op_type[2]), "TransData");  // N/A: derived from the name
  EXPECT_TRUE(e.op_type_derived[2]);
  EXPECT_EQ(p.strings.Get(e.tensors_of(2).input_shapes), "");
  EXPECT_EQ(e.step[5], model::kNoStep);
  EXPECT_EQ(p.strings.Get(e.name[5]), "");  // id 99 is not in STRING_IDS

  const RowLedger* task = LedgerOf(p, "TASK");
  ASSERT_NE(task, nullptr);
  EXPECT_EQ(task->rows_read(), 8);
  EXPECT_EQ(task->rows_used(), 4);
  EXPECT_EQ(task->rows_skipped(), 4);
  EXPECT_EQ(task->skipped_by_reason().at("HCCL plane task"), 1);
  EXPECT_EQ(task->skipped_by_reason().at("device task that is not a kernel"), 1);
  EXPECT_EQ(task->skipped_by_reason().at("missing endNs"), 1);
  EXPECT_EQ(task->skipped_by_reason().at("negative duration"), 1);
  EXPECT_EQ(task->notes_by_reason().at("unknown string id in name"), 1);
  for (const RowLedger& ledger : p.ledgers) EXPECT_TRUE(ledger.Balanced()) << ledger.file();
  const RowLedger* comm = LedgerOf(p, "COMMUNICATION_OP");
  ASSERT_NE(comm, nullptr);
  EXPECT_EQ(comm->rows_used(), 2);
  EXPECT_EQ(LedgerOf(p, "STEP_TIME")->rows_used(), 2);
  // The strings are read by id when a row refers to them: id 9 (KERNEL_AICORE) is only the
  // TASK taskType of kernel rows, which take COMPUTE_TASK_INFO's, so it is never read.
  EXPECT_EQ(LedgerOf(p, "STRING_IDS")->rows_read(), 13);
  EXPECT_EQ(LedgerOf(p, "STRING_IDS")->rows_used(), 13);
  // COMMUNICATION_OP's record of each op's message and group, as trace_view.json's args.
  const std::vector<model::CommOpMessage>& messages = p.communication.messages;
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].name, "hcom_allReduce__1_0_1");
  EXPECT_EQ(messages[0].count, 4096);
  EXPECT_EQ(messages[0].data_type, "FP32");
  EXPECT_EQ(messages[0].group_name, "group_name_19");
  EXPECT_EQ(messages[0].rank_size, -1);

  // analysis.db's StepTraceTime, µs -> ns exactly.
  ASSERT_EQ(p.step_trace.size(), 1u);
  EXPECT_EQ(p.step_trace[0].step, 1);
  EXPECT_EQ(p.step_trace[0].computing_ns, 600);
  EXPECT_EQ(p.step_trace[0].communication_not_overlapped_ns, 1500);
  EXPECT_EQ(p.step_trace[0].free_ns, 900);
  EXPECT_EQ(p.step_trace[0].preparing_ns, 250);

  // analysis.db's communication tables, as communication(_matrix).json.
  const model::CommunicationData& c = p.communication;
  ASSERT_TRUE(c.ops_present && c.matrix_present);
  ASSERT_EQ(c.ops.size(), 1u);
  EXPECT_EQ(c.ops[0].name, "hcom_allReduce__1_0_1");
  EXPECT_EQ(c.ops[0].group_hash, "77");
  EXPECT_EQ(c.ops[0].step, 1);
  EXPECT_FALSE(c.ops[0].p2p);
  EXPECT_DOUBLE_EQ(c.ops[0].elapse_ms, 0.0016);
  EXPECT_DOUBLE_EQ(c.ops[0].wait_ratio, 0.0015 / (0.0015 + 0.0005));
  EXPECT_TRUE(std::isnan(c.ops[0].idle_ms));  // -1: not a measurement
  ASSERT_EQ(c.ops[0].bandwidth.size(), 1u);   // HCCS once (two buckets), SDMA moved nothing
  EXPECT_EQ(c.ops[0].bandwidth[0].transport, "HCCS");
  EXPECT_DOUBLE_EQ(c.ops[0].bandwidth[0].bandwidth_gbps, 5.0);
  ASSERT_EQ(c.links.size(), 1u);
  EXPECT_EQ(c.links[0].op_type, "allreduce");
  EXPECT_EQ(c.links[0].statistic, "top1");
  EXPECT_EQ(c.links[0].src, 0);
  EXPECT_EQ(c.links[0].dst, 1);
  EXPECT_EQ(LedgerOf(p, "CommAnalyzerMatrix")->skipped_by_reason().at("unparsable src_rank"), 1);
  EXPECT_EQ(LedgerOf(p, "CommAnalyzerBandwidth")->rows_used(), 3);
  ASSERT_EQ(p.warnings.size(), 1u);  // the unknown idle time
  EXPECT_NE(p.warnings[0].find("CommAnalyzerTime: 1 values not a measurement"), std::string::npos)
      << p.warnings[0];

  // The budget as every analysis sees it: compute [1000,1500]+[1600,1700],
  // communication [1400,3000], 200 ns of it under compute.
  auto budget = analysis::ComputeStepBudget(p, 1);
  ASSERT_TRUE(budget.has_value());
  EXPECT_EQ(budget->budget.computation_ns, 600);
  EXPECT_EQ(budget->budget.communication_ns, 1600);
  EXPECT_EQ(budget->budget.exposed_communication_ns, 1400);  // [1500,1600] + [1700,3000]
}

// The memory tables, columns as the corpus db-level1 export has
// them: sizes in bytes, times in ns. Damaged rows: a MEMORY_RECORD row
// without a timestamp, an OP_MEMORY row without a size, an NPU_MODULE_MEM
// row without a moduleId, an NPU_MEM row of the whole device.
std::vector<std::string> MemoryTables() {
  return {
      "INSERT INTO STRING_IDS VALUES (20,'PTA'),(21,'PTA+GE'),(22,'aten::empty_strided'),"
      "(23,'app'),(24,'device')",
      "CREATE TABLE ENUM_MODULE (id INTEGER PRIMARY KEY, name TEXT)",
      "INSERT INTO ENUM_MODULE VALUES (3,'HCCL'),(7,'APP')",
      "CREATE TABLE MEMORY_RECORD (component INTEGER, timestamp INTEGER, totalAllocated "
      "INTEGER, totalReserved INTEGER, totalActive INTEGER, streamPtr INTEGER, deviceId INTEGER)",
      "INSERT INTO MEMORY_RECORD VALUES (20,1100,1048576,4194304,1048576,77,5),"
      "(21,1100,2097152,5242880,2097152,77,5),(20,1200,3145728,4194304,3145728,77,5),"
      "(20,NULL,1,2,1,77,5),(20,1300,NULL,4194304,NULL,88,5),(99,1400,5,6,5,77,5)",
      "CREATE TABLE OP_MEMORY (name INTEGER, size INTEGER, allocationTime INTEGER, releaseTime "
      "INTEGER, activeReleaseTime INTEGER, duration INTEGER, activeDuration INTEGER, "
      "allocationTotalAllocated INTEGER, allocationTotalReserved INTEGER, allocationTotalActive "
      "INTEGER, releaseTotalAllocated INTEGER, releaseTotalReserved INTEGER, releaseTotalActive "
      "INTEGER, streamPtr INTEGER, deviceId INTEGER)",
      "INSERT INTO OP_MEMORY VALUES "
      "(22,2097152,1150,1250,1250,100,100,3145728,4194304,3145728,1048576,4194304,1048576,77,5),"
      "(22,1024,1160,NULL,NULL,NULL,NULL,3146752,4194304,3146752,NULL,NULL,NULL,77,5),"
      "(22,NULL,1170,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,77,5)",
      "CREATE TABLE NPU_MODULE_MEM (moduleId INTEGER, timestampNs INTEGER, totalReserved "
      "NUMERIC, deviceId INTEGER)",
      "INSERT INTO NPU_MODULE_MEM VALUES (3,1000,423690240,5),(7,1000,1522532352,5),"
      "(42,1000,-1,5),(NULL,1000,5,5)",
      "CREATE TABLE NPU_MEM (type INTEGER, ddr NUMERIC, hbm NUMERIC, timestampNs INTEGER, "
      "deviceId INTEGER)",
      "INSERT INTO NPU_MEM VALUES (23,0,2212077568,1000,5),(24,0,9999,1000,5)",
      "CREATE TABLE NPU_INFO (id INTEGER, name TEXT)",
      "INSERT INTO NPU_INFO VALUES (5,'Ascend910B3')",
  };
}

// Every device event of |p| as text, and its ledgers' counts and samples:
// two loads of one database compare with one EXPECT_EQ.
std::string KernelsAndLedgers(const model::RankProfile& p) {
  std::string out;
  const model::DeviceEvents& e = p.device_events;
  for (size_t i = 0; i < e.size(); ++i) {
    out += std::to_string(e.start_ns[i]) + " " + std::to_string(e.duration_ns[i]) + " " +
           std::string(p.strings.Get(e.name[i])) + " " + std::to_string(e.step[i]) + " " +
           std::to_string(e.stream[i]) + " " + std::to_string(e.correlation[i]) + "\n";
  }
  for (const RowLedger& ledger : p.ledgers) {
    out += ledger.file() + " " + std::to_string(ledger.rows_read()) + " " +
           std::to_string(ledger.rows_skipped());
    for (const RowIssueSample& s : ledger.samples()) out += " " + std::to_string(s.line) + s.reason;
    out += "\n";
  }
  return out;
}

// Swaps the rowids of TASK's 2nd and 5th rows in the file itself (SQL cannot
// make them out of order): TASK's one leaf page (the file format's "table
// b-tree leaf", https://www.sqlite.org/fileformat2.html), its cells' payload
// length and rowid one byte each.
void SwapTaskRowids(const fs::path& db_path) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  auto integer = [db](const char* sql) {
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr), SQLITE_OK);
    EXPECT_EQ(sqlite3_step(stmt), SQLITE_ROW);
    const int64_t value = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    return value;
  };
  const int64_t root = integer("SELECT rootpage FROM sqlite_master WHERE name = 'TASK'");
  const int64_t page_size = integer("PRAGMA page_size");
  sqlite3_close(db);
  std::fstream file(db_path, std::ios::in | std::ios::out | std::ios::binary);
  const std::streamoff page = (root - 1) * page_size;
  auto byte_at = [&file](std::streamoff at) {
    file.seekg(at);
    return static_cast<unsigned char>(file.get());
  };
  ASSERT_EQ(byte_at(page), 0x0D);  // a table b-tree leaf
  auto cell_rowid_at = [&](int cell) {
    const std::streamoff pointer = page + 8 + 2 * cell;
    return page + (byte_at(pointer) << 8 | byte_at(pointer + 1)) + 1;
  };
  const std::streamoff second = cell_rowid_at(1), fifth = cell_rowid_at(4);
  ASSERT_EQ(byte_at(second), 2);
  ASSERT_EQ(byte_at(fifth), 5);
  file.seekp(second);
  file.put(5);
  file.seekp(fifth);
  file.put(2);
}

TEST(AscendDbReaderTest, KernelsReadInTilesAreTheKernelsOfOneStatement) {
  DbReadOptions tiled;
  tiled.threads = 2;
  tiled.parallel_rows = 1;  // TASK's 8 rows in tiles of one on two more connections
  tiled.tile_rows = 1;
  const fs::path rank = MakeRank("ascend_db_tiled", ProfilerDb());
  Result<model::RankProfile> one = LoadAscendDbRank(rank.string());
  Result<model::RankProfile> tiles = LoadAscendDbRank(rank.string(), tiled);
  ASSERT_TRUE(one.ok() && tiles.ok());
  EXPECT_EQ(one->device_events.size(), 6u);
  EXPECT_EQ(KernelsAndLedgers(*tiles), KernelsAndLedgers(*one));
  EXPECT_EQ(tiles->warnings, one->warnings);

  // Rowids out of order in TASK's B-tree (a damaged file): looked up by
  // rowid the table loses rows, so it is read again in its stored order,
  // as one thread reads it, and the damage is said.
  const fs::path damaged = MakeRank("ascend_db_tiled_damaged", ProfilerDb());
  SwapTaskRowids(damaged / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_3.db");
  Result<model::RankProfile> damaged_one = LoadAscendDbRank(damaged.string());
  Result<model::RankProfile> damaged_tiles = LoadAscendDbRank(damaged.string(), tiled);
  ASSERT_TRUE(damaged_one.ok() && damaged_tiles.ok());
  EXPECT_EQ(KernelsAndLedgers(*damaged_tiles), KernelsAndLedgers(*damaged_one));
  const std::vector<std::string>& said = damaged_tiles->warnings;
  EXPECT_TRUE(std::any_of(said.begin(), said.end(), [](const std::string& w) {
    return w.find("table TASK counts 8 rows, but 6 were found by rowid: the database is damaged") !=
           std::string::npos;
  })) << ::testing::PrintToString(said);
}

TEST(AscendDbReaderTest, ReadsTheMemoryTablesIntoTheModelWithLedgers) {
  std::vector<std::string> sql = ProfilerDb();
  for (std::string& statement : MemoryTables()) sql.push_back(std::move(statement));
  const fs::path rank = MakeRank("ascend_db_memory", sql);
  Result<model::RankProfile> loaded = LoadAscendDbRank(rank.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const model::RankProfile& p = *loaded;
  constexpr int64_t kMiB = int64_t{1} << 20;
  const model::MemoryData& m = p.memory;
  EXPECT_TRUE(m.has_records && m.has_operators && m.has_modules);
  // NPU_MEM's app row first (1000), then MEMORY_RECORD by time.
  ASSERT_EQ(m.records.size(), 6u);
  EXPECT_EQ(m.records[0].component, model::MemoryComponent::kApp);
  EXPECT_EQ(m.records[0].reserved_bytes, 2212077568);
  EXPECT_EQ(m.records[1].component, model::MemoryComponent::kPta);
  EXPECT_EQ(m.records[2].component, model::MemoryComponent::kPtaGe);
  EXPECT_EQ(m.records[3].allocated_bytes, 3 * kMiB);
  EXPECT_EQ(p.strings.Get(m.records[4].stream), "88");
  EXPECT_FALSE(m.records[4].allocated_bytes.has_value());
  EXPECT_EQ(m.records[5].component, model::MemoryComponent::kOther);  // string id 99 unknown
  ASSERT_EQ(m.operators.size(), 2u);
  EXPECT_EQ(p.strings.Get(m.operators[0].name), "aten::empty_strided");
  EXPECT_EQ(m.operators[0].size_bytes, 2 * kMiB);
  EXPECT_EQ(m.operators[0].release_ns, 1250);
  EXPECT_FALSE(m.operators[1].release_ns.has_value());
  ASSERT_EQ(m.modules.size(), 3u);
  EXPECT_FALSE(m.modules[2].reserved_bytes.has_value());  // -1: only releases captured
  EXPECT_EQ(p.info.device_name, "Ascend910B3");

  for (const auto& [table, read, used] : {std::tuple{"MEMORY_RECORD", 6, 5},
                                          {"OP_MEMORY", 3, 2},
                                          {"NPU_MODULE_MEM", 4, 3},
                                          {"NPU_MEM", 2, 1}}) {
    const RowLedger* ledger = LedgerOf(p, table);
    ASSERT_NE(ledger, nullptr) << table;
    EXPECT_EQ(ledger->rows_read(), read) << table;
    EXPECT_EQ(ledger->rows_used(), used) << table;
    EXPECT_EQ(ledger->rows_read(), ledger->rows_used() + ledger->rows_skipped()) << table;
  }
  EXPECT_EQ(LedgerOf(p, "MEMORY_RECORD")->skipped_by_reason().at("missing timestamp"), 1);
  EXPECT_EQ(LedgerOf(p, "OP_MEMORY")->skipped_by_reason().at("missing size"), 1);
  EXPECT_EQ(LedgerOf(p, "NPU_MEM")->skipped_by_reason().at("device-wide memory row"), 1);

  // The same model as the CSV readers': peaks, holders, modules, capacity.
  const std::optional<analysis::MemoryUsage> u = analysis::ComputeMemoryUsage(p, model::kNoStep);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->peak_allocated_bytes, 3 * kMiB);
  EXPECT_EQ(u->peak_allocated_ns, 1200);
  EXPECT_EQ(u->samples_from, "MEMORY_RECORD + NPU_MEM tables");  // never "memory_record.csv"
  EXPECT_EQ(u->peak_reserved_bytes, 4 * kMiB);
  EXPECT_EQ(u->gap_min_bytes, kMiB);
  EXPECT_EQ(u->app_peak_reserved_bytes, 2212077568);
  EXPECT_EQ(u->live_at_peak_bytes, 2 * kMiB + 1024);
  ASSERT_EQ(u->modules.size(), 2u);
  EXPECT_EQ(u->modules[0].component, "APP");
  EXPECT_EQ(u->modules[1].reserved_bytes, 423690240);
  EXPECT_EQ(u->capacity_bytes, int64_t{64} << 30);
  EXPECT_EQ(u->capacity_from, "device table: Huawei Ascend 910B3");
  EXPECT_EQ(u->headroom_bytes, (int64_t{64} << 30) - 4 * kMiB);
}

TEST(AscendDbReaderTest, TheImporterLoadsItAndTheFileIsNotTouched) {
  const fs::path rank = MakeRank("ascend_db_ro", ProfilerDb());
  const fs::path db = rank / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_3.db";
  const std::string before = testing::ReadFileBytes(db.string());
  const auto mtime = fs::last_write_time(db);
  const Importer* importer = FindImporter("ascend-db");
  ASSERT_NE(importer, nullptr);
  Result<model::RankProfile> loaded = LoadWith(*importer, rank.string(), ImportOptions{});
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->device_events.size(), 6u);
  EXPECT_EQ(loaded->warnings.size(), 1u);  // the fixture's idle time of -1
  EXPECT_EQ(testing::ReadFileBytes(db.string()), before);
  EXPECT_EQ(fs::last_write_time(db), mtime);
  EXPECT_FALSE(fs::exists(db.string() + "-wal"));
  EXPECT_FALSE(fs::exists(db.string() + "-shm"));
  EXPECT_FALSE(fs::exists(db.string() + "-journal"));
}

TEST(AscendDbReaderTest, MissingTableFailsTheRankWithTheFileAndAHint) {
  for (const char* table : {"COMPUTE_TASK_INFO", "TASK", "STRING_IDS"}) {
    const fs::path rank = MakeRank("ascend_db_damaged", ProfilerDb(table));
    Result<model::RankProfile> loaded = LoadAscendDbRank(rank.string());
    ASSERT_FALSE(loaded.ok()) << table;
    EXPECT_EQ(loaded.status().code(), StatusCode::kInvalidInput);
    const std::string& message = loaded.status().message();
    EXPECT_NE(
        message.find("ascend_pytorch_profiler_3.db: table " + std::string(table) + " missing"),
        std::string::npos)
        << message;
    EXPECT_NE(message.find("hint:"), std::string::npos) << message;
  }
}

TEST(AscendDbReaderTest, MissingRequiredColumnNamesTheColumnsFound) {
  const fs::path rank = MakeRank("ascend_db_column", ProfilerDb("", "beginNs"));
  Result<model::RankProfile> loaded = LoadAscendDbRank(rank.string());
  ASSERT_FALSE(loaded.ok());
  const std::string& message = loaded.status().message();
  EXPECT_NE(message.find("table TASK has no column startNs (its columns: beginNs, "),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("hint:"), std::string::npos);
}

TEST(AscendDbReaderTest, OptionalTablesMissingAreListedNotFatal) {
  std::vector<std::string> sql = ProfilerDb("COMMUNICATION_OP");
  sql.push_back("DROP TABLE STEP_TIME");
  sql.push_back("DROP TABLE COMMUNICATION_TASK_INFO");
  const fs::path rank = MakeRank("ascend_db_optional", sql);
  fs::remove(rank / "ASCEND_PROFILER_OUTPUT" / "analysis.db");
  Result<model::RankProfile> loaded = LoadAscendDbRank(rank.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->device_events.size(), 4u);
  EXPECT_TRUE(loaded->device_events.Steps().empty());
  EXPECT_EQ(loaded->steps_from, "");
  // COMMUNICATION_OP, STEP_TIME, PYTORCH_API, analysis.db, info
  EXPECT_EQ(loaded->missing_files.size(), 5u);
  // Without COMMUNICATION_TASK_INFO the notify task is just not a kernel.
  EXPECT_EQ(LedgerOf(*loaded, "TASK")->skipped_by_reason().at("device task that is not a kernel"),
            2);
}

TEST(AscendDbReaderTest, ForeignOrTruncatedFileIsAClearError) {
  const fs::path rank = fs::path(testing::MakeTempDir("ascend_db_foreign")) / "rank_0_ascend_pt";
  const fs::path db = rank / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db";
  MakeDb(db, ProfilerDb());
  // Cut the database to its first page and a half.
  const std::string bytes = testing::ReadFileBytes(db.string());
  fs::resize_file(db, std::min<uintmax_t>(bytes.size(), 6000));
  Result<model::RankProfile> loaded = LoadAscendDbRank(rank.string());
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("ascend_pytorch_profiler_0.db"), std::string::npos)
      << loaded.status().message();
  EXPECT_NE(loaded.status().message().find("hint:"), std::string::npos);

  // An unrelated database of that name.
  fs::remove(db);
  MakeDb(db, {"CREATE TABLE notes (x TEXT)"});
  loaded = LoadAscendDbRank(rank.string());
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("table STRING_IDS missing"), std::string::npos)
      << loaded.status().message();
}

TEST(AscendDbReaderTest, AFifoOrAFileWithoutTheHeaderIsNeverOpened) {
  const fs::path rank = fs::path(testing::MakeTempDir("ascend_db_fifo")) / "rank_0_ascend_pt";
  const fs::path out = rank / "ASCEND_PROFILER_OUTPUT";
  fs::create_directories(out);
  ASSERT_EQ(::mkfifo((out / "ascend_pytorch_profiler_0.db").c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo((out / "analysis.db").c_str(), 0600), 0);
  Result<model::RankProfile> loaded = LoadAscendDbRank(rank.string());  // must not block
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(
      loaded.status().message().find("ascend_pytorch_profiler_0.db: not a regular file (FIFO)"),
      std::string::npos)
      << loaded.status().message();

  // A real database beside a FIFO analysis.db: loads, with a warning.
  fs::remove(out / "ascend_pytorch_profiler_0.db");
  MakeDb(out / "ascend_pytorch_profiler_0.db", ProfilerDb());
  loaded = LoadAscendDbRank(rank.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ASSERT_EQ(loaded->warnings.size(), 1u);
  EXPECT_NE(loaded->warnings[0].find("analysis.db: not a regular file (FIFO); not read"),
            std::string::npos)
      << loaded->warnings[0];
}

TEST(AscendDbReaderTest, NonEmptyWriteAheadLogIsAWarning) {
  const fs::path rank = MakeRank("ascend_db_wal", ProfilerDb());
  const fs::path db = rank / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_3.db";
  {
    std::FILE* wal = std::fopen((db.string() + "-wal").c_str(), "wb");
    ASSERT_NE(wal, nullptr);
    std::fputs("not empty", wal);
    std::fclose(wal);
  }
  Result<model::RankProfile> loaded = LoadAscendDbRank(rank.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ASSERT_EQ(loaded->warnings.size(), 2u);  // the WAL, the fixture's idle time of -1
  EXPECT_NE(loaded->warnings[0].find("write-ahead log"), std::string::npos);
}

// PYTORCH_API + PYTORCH_CALLCHAINS + CONNECTION_IDS as torch_npu's schema
// 1.0.0 writes them (startNs/endNs TEXT; globalTid = pid << 32 | tid).
std::vector<std::string> HostTables() {
  const std::string main_tid = std::to_string((int64_t{100} << 32) | 100);
  const std::string queue_tid = std::to_string((int64_t{100} << 32) | 101);
  return {
      "INSERT INTO STRING_IDS VALUES (20,'ProfilerStep#1'),(21,'aten::mm'),(22,'aclnnMatmul'),"
      "(23,'Enqueue'),(24,'Dequeue@aclnnMatmul'),(25,'train.py(10): step'),(26,'HcclAllreduce'),"
      "(27,'/usr/lib/python3.9/site-packages/torch/_ops.py(692): __call__'),"
      "(28,'main.py(5): <module>')",
      "CREATE TABLE ENUM_API_TYPE (id INTEGER PRIMARY KEY, name TEXT)",
      "INSERT INTO ENUM_API_TYPE VALUES (50001,'op'),(50002,'queue'),(50003,'trace'),"
      "(50004,'mstx')",
      "CREATE TABLE PYTORCH_API (startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId "
      "INTEGER, name INTEGER, sequenceNumber INTEGER, fwdThreadId INTEGER, inputDtypes INTEGER, "
      "inputShapes INTEGER, callchainId INTEGER, type INTEGER, depth integer)",
      // start, end, thread, connectionId, name, callchain, type
      "INSERT INTO PYTORCH_API VALUES ('900','5000'," + main_tid +
          ",NULL,20,-1,0,NULL,NULL,NULL,50001,0),"
          "('950','1100'," +
          main_tid +
          ",100,21,-1,0,NULL,NULL,1,50001,2),"
          "('960','990'," +
          main_tid +
          ",101,22,-1,0,NULL,NULL,1,50001,3),"
          "('970','980'," +
          main_tid +
          ",102,23,-1,0,NULL,NULL,NULL,50002,4),"
          "('985','995'," +
          queue_tid +
          ",103,24,-1,0,NULL,NULL,NULL,50002,0),"
          "('920','4000'," +
          main_tid +
          ",NULL,25,-1,0,NULL,NULL,NULL,50003,1),"
          "('1300','1390'," +
          main_tid +
          ",104,26,-1,0,NULL,NULL,2,50001,2),"
          "('1400',NULL," +
          main_tid +
          ",NULL,21,-1,0,NULL,NULL,NULL,50001,2),"
          "('abc','1500'," +
          main_tid + ",NULL,21,-1,0,NULL,NULL,NULL,50001,2)",
      "CREATE TABLE PYTORCH_CALLCHAINS (id INTEGER, stack INTEGER, stackDepth INTEGER)",
      // Out of depth order; chain 2 has an unknown string id; one row has no id.
      "INSERT INTO PYTORCH_CALLCHAINS VALUES (1,28,2),(1,25,1),(1,27,0),(NULL,25,0),(2,98,0)",
      "CREATE TABLE CONNECTION_IDS (id INTEGER, connectionId INTEGER)",
      // aclnnMatmul -> tasks 1 and 2; Dequeue also claims task 1 (the torch op
      // wins); Enqueue -> the queue link 77; HcclAllreduce -> the op's 9; an
      // id no host op has; a NULL id.
      "INSERT INTO CONNECTION_IDS VALUES (101,1),(101,2),(103,1),(102,77),(104,9),(999,2),"
      "(NULL,3)",
  };
}

TEST(AscendDbReaderTest, ReadsHostOpsCallStacksAndLaunchLinks) {
  std::vector<std::string> sql = ProfilerDb();
  for (std::string& statement : HostTables()) sql.push_back(std::move(statement));
  const fs::path rank = MakeRank("ascend_db_host", sql);
  Result<model::RankProfile> loaded = LoadAscendDbRank(rank.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const model::RankProfile& p = *loaded;
  const model::Timeline& tl = p.timeline;
  EXPECT_TRUE(tl.present);
  EXPECT_EQ(tl.format, "ascend_db");
  const model::HostOps& ops = tl.host_ops;
  ASSERT_EQ(ops.size(), 7u);
  // Sorted by (pid, tid, start, longer first): the main thread, then the queue's.
  const std::vector<std::string_view> names = {
      "ProfilerStep#1", "train.py(10): step", "aten::mm",           "aclnnMatmul",
      "Enqueue",        "HcclAllreduce",      "Dequeue@aclnnMatmul"};
  const std::vector<int32_t> depths = {0, 1, 2, 3, 4, 2, 0};
  const std::vector<std::string_view> categories = {
      "cpu_op", "python_function", "cpu_op", "cpu_op", "enqueue", "cpu_op", "dequeue"};
  for (size_t i = 0; i < ops.size(); ++i) {
    EXPECT_EQ(p.strings.Get(ops.name[i]), names[i]) << i;
    EXPECT_EQ(ops.depth[i], depths[i]) << i;
    EXPECT_EQ(p.strings.Get(ops.category[i]), categories[i]) << i;
    EXPECT_EQ(ops.pid(i), 100) << i;
  }
  EXPECT_EQ(ops.tid(0), 100);
  EXPECT_EQ(ops.tid(6), 101);
  EXPECT_EQ(ops.start_ns[3], 960);
  EXPECT_EQ(ops.duration_ns[3], 30);
  EXPECT_EQ(ops.parent[3], 2);
  // The user frames of the chain, innermost first (depth 0 is torch's own frame).
  EXPECT_EQ(p.strings.Get(ops.source[2]), "train.py(10): step\nmain.py(5): <module>");
  EXPECT_EQ(p.strings.Get(ops.source[3]), "train.py(10): step\nmain.py(5): <module>");
  EXPECT_EQ(model::InnermostUserFrame(p.strings.Get(ops.source[2])), "train.py(10): step");
  EXPECT_EQ(p.strings.Get(ops.source[5]), "");  // chain 2: its only frame unknown
  ASSERT_EQ(tl.steps.size(), 1u);
  EXPECT_EQ(tl.steps[0].number, 1);
  EXPECT_EQ(tl.steps[0].start_ns, 900);
  EXPECT_EQ(tl.steps[0].end_ns, 5000);
  EXPECT_EQ(tl.step_source, model::StepSource::kProfilerStep);

  // Launchers: matmul 1000 and TransData 1600 by aclnnMatmul (not the
  // Dequeue), hcom 1400 by HcclAllreduce; the rest have none.
  const model::DeviceEvents& e = p.device_events;
  ASSERT_EQ(e.size(), 6u);
  const std::vector<int32_t> launchers = {
      3, 5, 3, model::kNoIndex, model::kNoIndex, model::kNoIndex};
  for (size_t i = 0; i < e.size(); ++i) EXPECT_EQ(e.launcher[i], launchers[i]) << i;
  EXPECT_EQ(tl.flows.size(), 3u);
  const std::optional<analysis::LaunchGapStats> gaps = analysis::ComputeLaunchGaps(p, 1);
  ASSERT_TRUE(gaps.has_value());
  EXPECT_EQ(gaps->median_launch_delay_ns, 10);  // 1000-990, 1400-1390, 1600-990

  for (const auto& [table, read, used] :
       {std::tuple{"PYTORCH_API", 9, 7}, {"PYTORCH_CALLCHAINS", 5, 4}, {"CONNECTION_IDS", 7, 5}}) {
    const RowLedger* ledger = LedgerOf(p, table);
    ASSERT_NE(ledger, nullptr) << table;
    EXPECT_EQ(ledger->rows_read(), read) << table;
    EXPECT_EQ(ledger->rows_used(), used) << table;
    EXPECT_TRUE(ledger->Balanced()) << table;
  }
  EXPECT_EQ(LedgerOf(p, "PYTORCH_API")->skipped_by_reason().at("missing endNs"), 1);
  EXPECT_EQ(LedgerOf(p, "PYTORCH_API")->skipped_by_reason().at("unparsable startNs"), 1);
  EXPECT_EQ(LedgerOf(p, "PYTORCH_CALLCHAINS")->skipped_by_reason().at("missing id"), 1);
  EXPECT_EQ(LedgerOf(p, "PYTORCH_CALLCHAINS")->notes_by_reason().at("unknown string id in stack"),
            1);
  EXPECT_EQ(LedgerOf(p, "CONNECTION_IDS")->skipped_by_reason().at("link to no host op"), 1);
  EXPECT_EQ(LedgerOf(p, "CONNECTION_IDS")->skipped_by_reason().at("missing id"), 1);
}

TEST(AscendDbReaderTest, WithoutHostTablesThereIsNoTimelineAndTheTableIsListed) {
  const fs::path rank = MakeRank("ascend_db_no_host", ProfilerDb());
  Result<model::RankProfile> loaded = LoadAscendDbRank(rank.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_FALSE(loaded->timeline.present);
  EXPECT_EQ(loaded->timeline.host_ops.size(), 0u);
  bool listed = false;
  for (const std::string& missing : loaded->missing_files) {
    listed = listed || missing.find("PYTORCH_API table") != std::string::npos;
  }
  EXPECT_TRUE(listed);
}

// OVERLAP_ANALYSIS of step 1 (STEP_TIME 1000..5000): Computing 500 + 100,
// Communication 1600, Not Overlapped 100 + 1300, Free 2000; a segment of an
// unknown type and one without an end.
std::vector<std::string> OverlapTable() {
  return {
      "CREATE TABLE OVERLAP_ANALYSIS (id INTEGER PRIMARY KEY AUTOINCREMENT, deviceId integer, "
      "startNs integer, endNs integer, type integer)",
      "INSERT INTO OVERLAP_ANALYSIS (deviceId, startNs, endNs, type) VALUES (0,1000,1500,0),"
      "(0,1600,1700,0),(0,1400,3000,1),(0,1500,1600,2),(0,1700,3000,2),(0,3000,5000,3),"
      "(0,3000,3100,7),(0,3200,NULL,0)",
  };
}

TEST(AscendDbReaderTest, OverlapAnalysisIsCheckedAgainstStepTraceTime) {
  std::vector<std::string> sql = ProfilerDb();
  for (std::string& statement : OverlapTable()) sql.push_back(std::move(statement));
  const fs::path rank = MakeRank("ascend_db_overlap", sql);
  Result<model::RankProfile> loaded = LoadAscendDbRank(rank.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const model::RankProfile& p = *loaded;
  EXPECT_EQ(p.timeline.overlap.size(), 6u);
  const RowLedger* ledger = LedgerOf(p, "OVERLAP_ANALYSIS");
  ASSERT_NE(ledger, nullptr);
  EXPECT_EQ(ledger->rows_read(), 8);
  EXPECT_EQ(ledger->rows_used(), 6);
  EXPECT_EQ(ledger->skipped_by_reason().at("unknown overlap segment"), 1);
  EXPECT_EQ(ledger->skipped_by_reason().at("missing endNs"), 1);
  // StepTraceTime is the accounting used; its Free (0.9 us) is 1.1 us off
  // the segments' 2 us: a warning. Not Overlapped (1.5 vs 1.4 us) is within 1 us.
  ASSERT_EQ(p.step_trace.size(), 1u);
  EXPECT_EQ(p.step_trace[0].computing_ns, 600);
  int overlap_warnings = 0;
  for (const std::string& warning : p.warnings) {
    if (warning.find("OVERLAP_ANALYSIS") == std::string::npos) continue;
    ++overlap_warnings;
    EXPECT_NE(warning.find("StepTraceTime step 1: free 0.900 µs differs from the sum of the "
                           "OVERLAP_ANALYSIS segments of the rank's database, 2.000 µs"),
              std::string::npos)
        << warning;
  }
  EXPECT_EQ(overlap_warnings, 1);
}

TEST(AscendDbReaderTest, WithoutAnalysisDbTheStepTraceIsTheOverlapAnalysisSums) {
  std::vector<std::string> sql = ProfilerDb();
  for (std::string& statement : OverlapTable()) sql.push_back(std::move(statement));
  const fs::path rank = MakeRank("ascend_db_overlap_only", sql);
  fs::remove(rank / "ASCEND_PROFILER_OUTPUT" / "analysis.db");
  Result<model::RankProfile> loaded = LoadAscendDbRank(rank.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ASSERT_EQ(loaded->step_trace.size(), 1u);
  const model::StepTraceRow& row = loaded->step_trace[0];
  EXPECT_EQ(row.step, 1);
  EXPECT_EQ(row.computing_ns, 600);
  EXPECT_EQ(row.communication_ns, 1600);
  EXPECT_EQ(row.communication_not_overlapped_ns, 1400);
  EXPECT_EQ(row.overlapped_ns, 200);
  EXPECT_EQ(row.free_ns, 2000);
  EXPECT_EQ(row.stage_ns, 4000);  // Computing + Not Overlapped + Free
  EXPECT_FALSE(row.preparing_ns.has_value());
  // The missing analysis.db costs the communication tables, not the step times.
  bool noted = false;
  for (const std::string& missing : loaded->missing_files) {
    if (missing.starts_with("analysis.db")) {
      noted = true;
      EXPECT_NE(missing.find("step times come from the rank database's OVERLAP_ANALYSIS"),
                std::string::npos)
          << missing;
    }
  }
  EXPECT_TRUE(noted);
}

TEST(AscendDbReaderTest, TaskPmuInfoGivesTheKernelsPipeRatios) {
  std::vector<std::string> sql = ProfilerDb();
  sql.push_back(
      "INSERT INTO STRING_IDS VALUES (30,'aic_mac_ratio'),(31,'aic_mte2_ratio'),"
      "(32,'aiv_vec_ratio'),(33,'aic_total_time')");
  sql.push_back("CREATE TABLE TASK_PMU_INFO (globalTaskId INTEGER, name INTEGER, value NUMERIC)");
  // Task 10 is the matmul at 1000 (row 0); a text value; a row without a
  // task; a metric that is not read.
  sql.push_back(
      "INSERT INTO TASK_PMU_INFO VALUES (10,30,0.5),(10,31,0.25),(10,32,'x'),(NULL,30,0.1),"
      "(10,33,99)");
  const fs::path rank = MakeRank("ascend_db_pmu", sql);
  Result<model::RankProfile> loaded = LoadAscendDbRank(rank.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const model::DeviceEvents& e = loaded->device_events;
  ASSERT_TRUE(e.has_pmu());
  ASSERT_EQ(e.pmu().size(), e.size());
  EXPECT_FLOAT_EQ(e.pmu().aic_mac_ratio[0], 0.5f);
  EXPECT_FLOAT_EQ(e.pmu().aic_mte2_ratio[0], 0.25f);
  EXPECT_TRUE(std::isnan(e.pmu().aiv_vec_ratio[0]));
  for (size_t i = 1; i < e.size(); ++i) EXPECT_TRUE(std::isnan(e.pmu().aic_mac_ratio[i])) << i;
  const RowLedger* ledger = LedgerOf(*loaded, "TASK_PMU_INFO");
  ASSERT_NE(ledger, nullptr);
  EXPECT_EQ(ledger->rows_read(), 4);  // the three ratios' rows only
  EXPECT_EQ(ledger->rows_used(), 3);
  EXPECT_EQ(ledger->skipped_by_reason().at("missing globalTaskId"), 1);
  EXPECT_EQ(ledger->notes_by_reason().at("unparsable value"), 1);
}

}  // namespace
}  // namespace trainscope::formats
