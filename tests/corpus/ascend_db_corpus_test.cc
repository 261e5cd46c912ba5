// The .db export reader on the real db-export job
// (shared/corpus/ascend/msinsight-pytorch-2rank-db-level1: torch_npu
// export_type=db, ResNet, 2 of 8 data-parallel ranks, one step, 50).
//
// Every number is checked against an independent SQL query over the same
// database, run here through the SQLite C API (not the reader's code), and
// pinned: the interval totals were computed with python3's sqlite3 on the
// raw files (union of [startNs, endNs] per kind, the query below).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "analysis/step/step_budget.h"
#include "corpus/corpus_inputs.h"
#include "formats/ascend/ascend_rank_loader.h"
#include "formats/ascend_db/ascend_db_reader.h"
#include "golden/cli_test_util.h"
#include "test_paths.h"

namespace trainscope::formats {
namespace {

// Kernels per step: compute tasks (TASK rows with a COMPUTE_TASK_INFO row)
// and communication ops whose start lies in a STEP_TIME range.
constexpr const char* kKernelsPerStep =
    "SELECT s.id, count(*) FROM (SELECT t.startNs AS st FROM TASK t JOIN COMPUTE_TASK_INFO c "
    "ON c.globalTaskId = t.globalTaskId UNION ALL SELECT o.startNs FROM COMMUNICATION_OP o) k "
    "JOIN STEP_TIME s ON k.st BETWEEN s.startNs AND s.endNs GROUP BY s.id";
constexpr const char* kCommOpsPerStep =
    "SELECT s.id, count(*) FROM COMMUNICATION_OP o JOIN STEP_TIME s ON o.startNs BETWEEN "
    "s.startNs AND s.endNs GROUP BY s.id";

std::map<int64_t, int64_t> PerStep(const std::string& path, const char* sql) {
  std::map<int64_t, int64_t> out;
  sqlite3* db = nullptr;
  const std::string uri = "file:" + path + "?mode=ro&immutable=1";
  EXPECT_EQ(sqlite3_open_v2(uri.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr),
            SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    out[sqlite3_column_int64(stmt, 0)] = sqlite3_column_int64(stmt, 1);
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return out;
}

// Pinned with python3 (sqlite3): for step 50, the union length of the
// compute tasks' [startNs, endNs] (query kKernelsPerStep without the
// COMMUNICATION_OP part), of the COMMUNICATION_OP spans, and the
// communication not under compute. Rank 0's equal analysis.db's own
// StepTraceTime (computing 8903.431 µs, communication 102108.1 µs, not
// overlapped 98071.947 µs, stage 132233.522 µs).
struct Pinned {
  int rank;
  int64_t computation_ns, communication_ns, exposed_ns, window_ns;
};
constexpr Pinned kPinned[] = {
    {0, 8903431, 102108100, 98071947, 132233522},
    {1, 8915634, 98590190, 94556050, 129312183},
};

TEST(AscendDbCorpusTest, CountsAndBudgetEqualTheSqlQueries) {
  TS_REQUIRE_CORPUS(testing::kMsinsightDbJob);
  for (const Pinned& pin : kPinned) {
    const std::string rank_dir = corpus_path + "/" + testing::kMsinsightDbJob + "/rank" +
                                 std::to_string(pin.rank) + "_ascend_pt";
    const std::string db = rank_dir + "/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_" +
                           std::to_string(pin.rank) + ".db";
    Result<model::RankProfile> loaded = LoadAscendDbRank(rank_dir);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    const model::RankProfile& p = *loaded;
    EXPECT_EQ(p.rank, pin.rank);
    EXPECT_EQ(p.info.profiler_level, "Level1");
    EXPECT_TRUE(p.warnings.empty()) << p.warnings.front();
    for (const RowLedger& ledger : p.ledgers) EXPECT_TRUE(ledger.Balanced()) << ledger.file();

    const std::map<int64_t, int64_t> kernels = PerStep(db, kKernelsPerStep);
    const std::map<int64_t, int64_t> comm_ops = PerStep(db, kCommOpsPerStep);
    EXPECT_EQ(kernels, (std::map<int64_t, int64_t>{{50, 191}}));  // 187 compute + 4 hcom
    EXPECT_EQ(comm_ops, (std::map<int64_t, int64_t>{{50, 4}}));
    ASSERT_EQ(p.device_events.Steps(), std::vector<int32_t>{50});
    EXPECT_EQ(static_cast<int64_t>(p.device_events.RowsOf(50).size()), kernels.at(50));
    int64_t comm_rows = 0;
    for (uint32_t row : p.device_events.RowsOf(50)) {
      comm_rows += p.device_events.kind[row] == model::ActivityKind::kCommunication;
    }
    EXPECT_EQ(comm_rows, comm_ops.at(50));

    auto budget = analysis::ComputeStepBudget(p, 50);
    ASSERT_TRUE(budget.has_value());
    EXPECT_EQ(budget->budget.computation_ns, pin.computation_ns);
    EXPECT_EQ(budget->budget.communication_ns, pin.communication_ns);
    EXPECT_EQ(budget->budget.exposed_communication_ns, pin.exposed_ns);
    EXPECT_EQ(budget->budget.total_ns, pin.window_ns);

    // analysis.db's communication tables: every op and link row.
    const std::string analysis = rank_dir + "/ASCEND_PROFILER_OUTPUT/analysis.db";
    EXPECT_EQ(PerStep(analysis, "SELECT 0, count(*) FROM CommAnalyzerTime").at(0), 4);
    EXPECT_EQ(static_cast<int64_t>(p.communication.ops.size()),
              PerStep(analysis, "SELECT 0, count(*) FROM CommAnalyzerTime").at(0));
    EXPECT_EQ(static_cast<int64_t>(p.communication.links.size()),
              PerStep(analysis, "SELECT 0, count(*) FROM CommAnalyzerMatrix").at(0));
    for (const model::CommOpRecord& op : p.communication.ops) EXPECT_EQ(op.step, 50);

    // analysis.db's StepTraceTime is read exactly (µs -> ns, no double).
    ASSERT_EQ(p.step_trace.size(), 1u);
    EXPECT_EQ(p.step_trace[0].step, 50);
    if (pin.rank == 0) {
      EXPECT_EQ(p.step_trace[0].computing_ns, 8903431);
      EXPECT_EQ(p.step_trace[0].communication_ns, 102108100);
      EXPECT_EQ(p.step_trace[0].communication_not_overlapped_ns, 98071947);
      EXPECT_EQ(p.step_trace[0].stage_ns, 132233522);
    }
  }
}

// The text export of the same job (msinsight-pytorch-2rank-text-level1) is
// another capture (January 2025, 28 minutes earlier: different times), but
// of the same deterministic ResNet step: both readers must see the same
// kernels, op type by op type.
TEST(AscendDbCorpusTest, SameOpTypesAsTheTextExportOfTheJob) {
  TS_REQUIRE_CORPUS(testing::kMsinsightDbJob);
  if (!std::filesystem::exists(corpus_path + "/ascend/msinsight-pytorch-2rank-text-level1")) {
    GTEST_SKIP() << "text export absent";
  }
  for (int rank : {0, 1}) {
    const std::string suffix = "/rank" + std::to_string(rank) + "_ascend_pt";
    Result<model::RankProfile> db =
        LoadAscendDbRank(corpus_path + "/" + testing::kMsinsightDbJob + suffix);
    Result<model::RankProfile> text =
        LoadAscendRank(corpus_path + "/ascend/msinsight-pytorch-2rank-text-level1" + suffix);
    ASSERT_TRUE(db.ok() && text.ok());
    auto types = [](const model::RankProfile& p) {
      std::map<std::string, int> out;
      for (size_t i = 0; i < p.device_events.size(); ++i) {
        ++out[std::string(p.strings.Get(p.device_events.op_type[i]))];
      }
      return out;
    };
    EXPECT_EQ(types(*db), types(*text)) << "rank " << rank;
    EXPECT_EQ(db->device_events.size(), 191u);
  }
}

}  // namespace
}  // namespace trainscope::formats

namespace trainscope::formats {
namespace {

// The Qwen3 job (CANN 8.3) wrote analysis.db beside its text export: the
// same run, so StepTraceTime must equal step_trace_time.csv. The db keeps
// two decimals of µs (and its own rounding of Stage and Preparing): equal
// within 1 µs. CANN 8.3's StepTraceTime has a leading deviceId column.
TEST(AscendDbCorpusTest, AnalysisDbStepTraceEqualsTheCsvOfTheSameRun) {
  TS_REQUIRE_CORPUS(testing::kQwenLevel2Job);
  for (int rank : {0, 1, 2, 3}) {
    const std::string dir = corpus_path + "/" + testing::kQwenLevel2Job + "/rank_" +
                            std::to_string(rank) + "_ascend_pt/ASCEND_PROFILER_OUTPUT";
    model::RankProfile db;
    ASSERT_TRUE(ReadAnalysisDb(dir + "/analysis.db", &db).ok());
    Result<model::RankProfile> text = LoadAscendRank(dir + "/..");
    ASSERT_TRUE(text.ok()) << text.status().message();
    ASSERT_EQ(db.step_trace.size(), 1u);
    ASSERT_EQ(text->step_trace.size(), 1u);
    const model::StepTraceRow& a = db.step_trace[0];
    const model::StepTraceRow& b = text->step_trace[0];
    EXPECT_EQ(a.step, 13);
    EXPECT_EQ(a.step, b.step);
    EXPECT_EQ(a.device_id, b.device_id);
    EXPECT_NEAR(a.computing_ns, b.computing_ns, 1000);
    EXPECT_NEAR(a.communication_not_overlapped_ns, b.communication_not_overlapped_ns, 1000);
    EXPECT_NEAR(a.communication_ns, b.communication_ns, 1000);
    EXPECT_NEAR(a.free_ns, b.free_ns, 1000);
    EXPECT_NEAR(a.stage_ns, b.stage_ns, 1000);
    ASSERT_TRUE(a.preparing_ns && b.preparing_ns);
    EXPECT_NEAR(*a.preparing_ns, *b.preparing_ns, 1000);
  }
}

// The text report names where the profiler's step accounting came from:
// analysis.db's table for a .db job, the CSV for a text one.
TEST(AscendDbCorpusTest, TheReportNamesTheStepTraceSourceItRead) {
  TS_REQUIRE_CORPUS("ascend");
  const auto profiler_line = [&](const std::string& job) {
    const testing::CommandResult r =
        testing::RunTrainscope({"analyze", corpus_path + "/ascend/" + job, "--threads", "2"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const size_t at = r.out.find("  profiler    ");
    return at == std::string::npos ? std::string() : r.out.substr(at, r.out.find('\n', at) - at);
  };
  const std::string db = profiler_line("msinsight-st-qwen3-0.6b-4rank-level2-cann8.3.RC1");
  const std::string text = profiler_line("msinsight-pytorch-2rank-text-level1");
  EXPECT_NE(text.find("[step_trace_time.csv]"), std::string::npos) << text;
  EXPECT_NE(db.find("[step_trace_time.csv]"), std::string::npos) << db;
  const std::string db_only = profiler_line("msinsight-pytorch-2rank-db-level1");
  EXPECT_NE(db_only.find("[analysis.db:StepTraceTime]"), std::string::npos) << db_only;
}

}  // namespace
}  // namespace trainscope::formats

namespace trainscope::formats {
namespace {

// Host ops: every PYTORCH_API row; launch links: the compute tasks and
// communication ops whose connectionId a CONNECTION_IDS row joins to a
// PYTORCH_API row (PYTORCH_API.connectionId -> CONNECTION_IDS.id,
// CONNECTION_IDS.connectionId -> TASK / COMMUNICATION_OP.connectionId).
constexpr const char* kHostOps = "SELECT 0, count(*) FROM PYTORCH_API";
constexpr const char* kLinkedDeviceEvents =
    "SELECT 0, count(*) FROM (SELECT t.connectionId AS c FROM TASK t JOIN COMPUTE_TASK_INFO k "
    "ON k.globalTaskId = t.globalTaskId UNION ALL SELECT o.connectionId FROM COMMUNICATION_OP o) "
    "e WHERE e.c IN (SELECT ci.connectionId FROM CONNECTION_IDS ci JOIN PYTORCH_API p ON "
    "p.connectionId = ci.id)";
constexpr const char* kLinkedTasks =
    "SELECT 0, count(*) FROM PYTORCH_API p JOIN CONNECTION_IDS ci ON ci.id = p.connectionId "
    "JOIN TASK t ON t.connectionId = ci.connectionId";

// Pinned with python3's sqlite3 on both ranks' databases: 2,460 host ops
// (860 torch ops, 318 task-queue ops, 1,282 Python frames) on 3 threads,
// 4,683 call-chain frames, 563 links; 500 TASK rows link to a host op, of
// which our 191 device events (187 kernels + 4 allreduce ops; the others are
// HCCL plane and runtime tasks); 316 host ops have a user source frame
// (the innermost frame outside site-packages / torch / the Python library).
TEST(AscendDbCorpusTest, HostOpsAndLaunchLinksEqualTheSqlQueries) {
  TS_REQUIRE_CORPUS(testing::kMsinsightDbJob);
  for (int rank : {0, 1}) {
    const std::string rank_dir = corpus_path + "/" + testing::kMsinsightDbJob + "/rank" +
                                 std::to_string(rank) + "_ascend_pt";
    const std::string db = rank_dir + "/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_" +
                           std::to_string(rank) + ".db";
    Result<model::RankProfile> loaded = LoadAscendDbRank(rank_dir);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    const model::RankProfile& p = *loaded;
    const model::HostOps& ops = p.timeline.host_ops;
    EXPECT_EQ(PerStep(db, kHostOps).at(0), 2460);
    EXPECT_EQ(static_cast<int64_t>(ops.size()), PerStep(db, kHostOps).at(0));
    EXPECT_EQ(PerStep(db, kLinkedTasks).at(0), 500);
    EXPECT_EQ(PerStep(db, kLinkedDeviceEvents).at(0), 191);
    const auto linked = std::count_if(p.device_events.launcher.values().begin(),
                                      p.device_events.launcher.values().end(),
                                      [](int32_t op) { return op != model::kNoIndex; });
    EXPECT_EQ(linked, PerStep(db, kLinkedDeviceEvents).at(0));
    // values(): every row once any op has a source (none before).
    const std::vector<StringId>& sources = ops.source.values();
    const auto with_source = std::count_if(sources.begin(), sources.end(),
                                           [](StringId s) { return s != StringPool::kEmpty; });
    EXPECT_EQ(with_source, 316);
    ASSERT_EQ(p.timeline.steps.size(), 1u);
    EXPECT_EQ(p.timeline.steps[0].number, 50);
    // Every kernel is launched by a torch op (cpu_op), as trace_view.json's
    // async_npu flows give it in the text export.
    for (size_t i = 0; i < p.device_events.size(); ++i) {
      const int32_t op = p.device_events.launcher[i];
      ASSERT_NE(op, model::kNoIndex);
      EXPECT_EQ(p.strings.Get(ops.category[static_cast<size_t>(op)]), "cpu_op");
      EXPECT_LE(ops.start_ns[static_cast<size_t>(op)], p.device_events.start_ns[i]);
    }
    for (const auto& [table, rows] :
         {std::pair{"PYTORCH_API", 2460}, {"PYTORCH_CALLCHAINS", 4683}, {"CONNECTION_IDS", 563}}) {
      const RowLedger* ledger = nullptr;
      for (const RowLedger& l : p.ledgers) {
        if (l.file().ends_with(std::string(":") + table)) ledger = &l;
      }
      ASSERT_NE(ledger, nullptr) << table;
      EXPECT_EQ(ledger->rows_read(), rows) << table;
      EXPECT_EQ(ledger->rows_used(), rows) << table;
    }
  }
}

}  // namespace
}  // namespace trainscope::formats

namespace trainscope::formats {
namespace {

// OVERLAP_ANALYSIS (rank 0 only: rank 1's database has neither it nor
// status_info): 382 segments whose sums per type, pinned with python3's
// sqlite3, equal analysis.db's StepTraceTime to the ns; without analysis.db
// the rank's step_trace is those sums.
TEST(AscendDbCorpusTest, OverlapAnalysisSumsAreTheProfilersStepAccounting) {
  TS_REQUIRE_CORPUS(testing::kMsinsightDbJob);
  const std::string rank_dir = corpus_path + "/" + testing::kMsinsightDbJob + "/rank0_ascend_pt";
  Result<model::RankProfile> with_analysis = LoadAscendDbRank(rank_dir);
  ASSERT_TRUE(with_analysis.ok()) << with_analysis.status().message();
  EXPECT_EQ(with_analysis->timeline.overlap.size(), 382u);
  EXPECT_TRUE(with_analysis->warnings.empty()) << with_analysis->warnings.front();

  // The rank without analysis.db: a temp dir of symlinks.
  const std::filesystem::path dir =
      std::filesystem::path(testing::MakeTempDir("overlap_only")) / "rank0_ascend_pt";
  std::filesystem::create_directories(dir / "ASCEND_PROFILER_OUTPUT");
  std::filesystem::create_symlink(rank_dir + "/profiler_info_0.json", dir / "profiler_info_0.json");
  std::filesystem::create_symlink(rank_dir + "/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db",
                                  dir / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db");
  Result<model::RankProfile> loaded = LoadAscendDbRank(dir.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ASSERT_EQ(loaded->step_trace.size(), 1u);
  const model::StepTraceRow& row = loaded->step_trace[0];
  EXPECT_EQ(row.step, 50);
  EXPECT_EQ(row.computing_ns, 8903431);
  EXPECT_EQ(row.communication_ns, 102108100);
  EXPECT_EQ(row.communication_not_overlapped_ns, 98071947);
  EXPECT_EQ(row.free_ns, 25258144);
  EXPECT_EQ(row.overlapped_ns, 4036153);
  EXPECT_EQ(row.stage_ns, 132233522);
  const model::StepTraceRow& table = with_analysis->step_trace[0];
  EXPECT_EQ(row.computing_ns, table.computing_ns);
  EXPECT_EQ(row.communication_ns, table.communication_ns);
  EXPECT_EQ(row.communication_not_overlapped_ns, table.communication_not_overlapped_ns);
  EXPECT_EQ(row.free_ns, table.free_ns);
  EXPECT_EQ(row.overlapped_ns, table.overlapped_ns);
  EXPECT_EQ(row.stage_ns, table.stage_ns);
}

}  // namespace
}  // namespace trainscope::formats

namespace trainscope::formats {
namespace {

// TASK_PMU_INFO (both ranks; aic_metrics PipeUtilization): 185 of the 187
// kernels have the three ratios; the duration-weighted aic_mac_ratio over
// them, pinned with python3's sqlite3 (sum(value * (endNs - startNs)) /
// sum(endNs - startNs) over TASK_PMU_INFO ⋈ TASK), is 0.149334 on rank 0 and
// 0.149174 on rank 1.
TEST(AscendDbCorpusTest, TaskPmuRatiosEqualTheSqlQuery) {
  TS_REQUIRE_CORPUS(testing::kMsinsightDbJob);
  for (const auto& [rank, weighted_mac] :
       {std::pair{0, 0.14933368308828202}, std::pair{1, 0.14917356067781853}}) {
    Result<model::RankProfile> loaded =
        LoadAscendDbRank(corpus_path + "/" + testing::kMsinsightDbJob + "/rank" +
                         std::to_string(rank) + "_ascend_pt");
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    const model::DeviceEvents& e = loaded->device_events;
    ASSERT_TRUE(e.has_pmu());
    int with_metrics = 0;
    double weighted = 0, total = 0;
    for (size_t i = 0; i < e.size(); ++i) {
      if (std::isnan(e.pmu().aic_mac_ratio[i])) continue;
      ++with_metrics;
      weighted +=
          static_cast<double>(e.pmu().aic_mac_ratio[i]) * static_cast<double>(e.duration_ns[i]);
      total += static_cast<double>(e.duration_ns[i]);
    }
    EXPECT_EQ(with_metrics, 185) << rank;
    EXPECT_NEAR(weighted / total, weighted_mac, 1e-6) << rank;
  }
}

}  // namespace
}  // namespace trainscope::formats
