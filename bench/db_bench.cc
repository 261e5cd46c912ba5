// The .db export reader's throughput (rows/s), to set against
// BM_CsvKernelDetailsParse's (csv_bench.cc) on the same rows. The database
// is built at bench time in the system temp dir with the schema torch_npu
// writes (ascend_pytorch_profiler_<rank>.db, docs/ingest.md "The .db
// export"): per compute kernel one TASK row and one COMPUTE_TASK_INFO row,
// every 97th row a COMMUNICATION_OP with two HCCL plane tasks in TASK, a
// few hundred distinct names in STRING_IDS, one STEP_TIME range.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "formats/ascend_db/ascend_db_reader.h"
#include "model/rank_profile.h"

namespace {

void Exec(sqlite3* db, const char* sql) { sqlite3_exec(db, sql, nullptr, nullptr, nullptr); }

// Returns the path of a database with |rows| compute kernels ("" on failure).
std::string MakeProfilerDb(int64_t rows) {
  std::string path = (std::filesystem::temp_directory_path() /
                      fmt::format("trainscope_db_bench_{}_{}.db", ::getpid(), rows))
                         .string();
  std::filesystem::remove(path);
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) return "";
  Exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN");
  Exec(db,
       "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT);"
       "CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId "
       "INTEGER, globalTaskId INTEGER, globalPid INTEGER, taskType INTEGER, contextId INTEGER, "
       "streamId INTEGER, taskId INTEGER, modelId INTEGER, depth INTEGER);"
       "CREATE TABLE COMPUTE_TASK_INFO (name INTEGER, globalTaskId INTEGER PRIMARY KEY, blockDim "
       "INTEGER, mixBlockDim INTEGER, taskType INTEGER, opType INTEGER, inputFormats INTEGER, "
       "inputDataTypes INTEGER, inputShapes INTEGER, outputFormats INTEGER, outputDataTypes "
       "INTEGER, outputShapes INTEGER, attrInfo INTEGER, waitNs INTEGER);"
       "CREATE TABLE COMMUNICATION_TASK_INFO (name INTEGER, globalTaskId INTEGER, taskType "
       "INTEGER, planeId INTEGER, groupName INTEGER, opId INTEGER);"
       "CREATE TABLE COMMUNICATION_OP (opName INTEGER, startNs INTEGER, endNs INTEGER, "
       "connectionId INTEGER, groupName INTEGER, opId INTEGER PRIMARY KEY, relay INTEGER, retry "
       "INTEGER, dataType INTEGER, algType INTEGER, count NUMERIC, opType INTEGER, waitNs "
       "INTEGER);"
       "CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER);"
       "CREATE TABLE RANK_DEVICE_MAP (rankId INTEGER, deviceId INTEGER);"
       "INSERT INTO RANK_DEVICE_MAP VALUES (0, 0);");
  static const char* kOps[] = {
      "MatMulV3", "Add", "Mul", "Cast", "RmsNorm", "FlashAttentionScore", "Transpose", "GatherV2"};
  static const char* kCores[] = {"AI_CORE",        "AI_VECTOR_CORE", "AI_VECTOR_CORE",
                                 "AI_VECTOR_CORE", "AI_VECTOR_CORE", "MIX_AIC",
                                 "AI_VECTOR_CORE", "AI_VECTOR_CORE"};
  // ids: 1..8 op types, 11..18 cores, 20 shapes, 21 dtypes, 22 KERNEL_AICORE,
  // 23 hcom type, 24 Notify Wait, 100 + op * 40 + k names, 1000 + k hcom names.
  sqlite3_stmt* str = nullptr;
  sqlite3_prepare_v2(db, "INSERT INTO STRING_IDS VALUES (?, ?)", -1, &str, nullptr);
  auto add_string = [&](int64_t id, const std::string& value) {
    sqlite3_bind_int64(str, 1, id);
    sqlite3_bind_text(str, 2, value.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_step(str);
    sqlite3_reset(str);
  };
  for (int op = 0; op < 8; ++op) {
    add_string(1 + op, kOps[op]);
    add_string(11 + op, kCores[op]);
    for (int k = 0; k < 40; ++k) {
      add_string(100 + op * 40 + k,
                 fmt::format("aclnn{}_{}AiCore_{}{}", kOps[op], kOps[op], kOps[op], k));
    }
  }
  add_string(20, "\"1,4096,1024;1024\"");
  add_string(21, "DT_BF16;DT_BF16");
  add_string(22, "KERNEL_AICORE");
  add_string(23, "hcom_allReduce_");
  add_string(24, "Notify Wait");
  for (int k = 0; k < 300; ++k) add_string(1000 + k, fmt::format("hcom_allReduce__{}_0_1", k));
  sqlite3_finalize(str);

  sqlite3_stmt* task = nullptr;
  sqlite3_stmt* info = nullptr;
  sqlite3_stmt* comm = nullptr;
  sqlite3_stmt* plane = nullptr;
  sqlite3_prepare_v2(db, "INSERT INTO TASK VALUES (?,?,0,?,?,1,?,0,2,?,0,0)", -1, &task, nullptr);
  sqlite3_prepare_v2(db, "INSERT INTO COMPUTE_TASK_INFO VALUES (?,?,40,0,?,?,0,21,20,0,21,20,0,0)",
                     -1, &info, nullptr);
  sqlite3_prepare_v2(db, "INSERT INTO COMMUNICATION_OP VALUES (?,?,?,0,0,?,0,0,0,0,4096,23,0)", -1,
                     &comm, nullptr);
  sqlite3_prepare_v2(db, "INSERT INTO COMMUNICATION_TASK_INFO VALUES (?,?,24,0,0,?)", -1, &plane,
                     nullptr);
  const int64_t first_ns = 1764246877073569640;
  int64_t start_ns = first_ns;
  int64_t global_task = 0;
  for (int64_t i = 0; i < rows; ++i) {
    const int op = static_cast<int>(i % 8);
    const int64_t dur_ns = 1000 + (i * 7919) % 400000;
    if (i % 97 == 0) {
      sqlite3_bind_int64(comm, 1, 1000 + i % 300);
      sqlite3_bind_int64(comm, 2, start_ns);
      sqlite3_bind_int64(comm, 3, start_ns + dur_ns);
      sqlite3_bind_int64(comm, 4, i);
      sqlite3_step(comm);
      sqlite3_reset(comm);
      for (int k = 0; k < 2; ++k) {  // HCCL's own tasks of the op
        sqlite3_bind_int64(task, 1, start_ns + k);
        sqlite3_bind_int64(task, 2, start_ns + k + 10);
        sqlite3_bind_int64(task, 3, i);
        sqlite3_bind_int64(task, 4, global_task);
        sqlite3_bind_int64(task, 5, 24);
        sqlite3_bind_int64(task, 6, global_task);
        sqlite3_step(task);
        sqlite3_reset(task);
        sqlite3_bind_int64(plane, 1, 1000 + i % 300);
        sqlite3_bind_int64(plane, 2, global_task);
        sqlite3_bind_int64(plane, 3, i);
        sqlite3_step(plane);
        sqlite3_reset(plane);
        ++global_task;
      }
    } else {
      sqlite3_bind_int64(task, 1, start_ns);
      sqlite3_bind_int64(task, 2, start_ns + dur_ns);
      sqlite3_bind_int64(task, 3, i);
      sqlite3_bind_int64(task, 4, global_task);
      sqlite3_bind_int64(task, 5, 22);
      sqlite3_bind_int64(task, 6, global_task);
      sqlite3_step(task);
      sqlite3_reset(task);
      sqlite3_bind_int64(info, 1, 100 + op * 40 + i % 40);
      sqlite3_bind_int64(info, 2, global_task);
      sqlite3_bind_int64(info, 3, 11 + op);
      sqlite3_bind_int64(info, 4, 1 + op);
      sqlite3_step(info);
      sqlite3_reset(info);
      ++global_task;
    }
    start_ns += dur_ns + 1500;
  }
  sqlite3_finalize(task);
  sqlite3_finalize(info);
  sqlite3_finalize(comm);
  sqlite3_finalize(plane);
  Exec(db, fmt::format("INSERT INTO STEP_TIME VALUES (13, {}, {})", first_ns, start_ns).c_str());
  Exec(db, "COMMIT");
  sqlite3_close(db);
  return path;
}

// Items are the rows of kernel_details.csv the database stands for (compute
// kernels + communication ops), so rows/s compares with the CSV bench.
void BM_DbProfilerRead(benchmark::State& state) {
  const std::string path = MakeProfilerDb(state.range(0));
  if (path.empty()) {
    state.SkipWithError("cannot create the bench database");
    return;
  }
  for (auto _ : state) {
    trainscope::model::RankProfile profile;
    trainscope::Status status = trainscope::formats::ReadAscendProfilerDb(path, &profile);
    if (!status.ok()) state.SkipWithError(status.message().c_str());
    benchmark::DoNotOptimize(profile.device_events.start_ns.data());
  }
  const auto bytes = static_cast<int64_t>(std::filesystem::file_size(path));
  state.SetBytesProcessed(state.iterations() * bytes);
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["bytes_per_row"] = static_cast<double>(bytes) / state.range(0);
  std::filesystem::remove(path);
}
BENCHMARK(BM_DbProfilerRead)->Arg(10000)->Arg(200000)->Unit(benchmark::kMillisecond);

// 13 M kernels, ~1 GB of database (77 B/row): only with
// TRAINSCOPE_BENCH_BIG=1 (building it takes a minute and the rows ~1.5 GB
// of memory; CI's functional run stays small). Its per-row rate is set
// against BM_CsvKernelDetailsParse1GB (csv_bench.cc) in docs/benchmarks.md.
const bool kBigRegistered = [] {
  if (std::getenv("TRAINSCOPE_BENCH_BIG") == nullptr) return false;
  benchmark::RegisterBenchmark("BM_DbProfilerRead1GB", BM_DbProfilerRead)
      ->Arg(13000000)
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace
