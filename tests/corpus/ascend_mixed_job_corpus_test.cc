// A job whose ranks come in both export forms: some ranks text
// (kernel_details.csv, step_trace_time.csv), some db
// (ascend_pytorch_profiler_<rank>.db, analysis.db).
//
// The corpus has no job that mixes the two within one run: its db job
// (msinsight-pytorch-2rank-db-level1) and text job (...-text-level1) are two
// captures 28 minutes apart, which trainscope rightly keeps apart as two
// runs. So the mixed job is built in a temp dir from the db job: rank 0 is
// a symlink to the db rank as torch_npu wrote it, rank 1 is the text form
// of the db rank 1 (its kernel_details.csv and step_trace_time.csv written
// here by SQL from the same database, profiler_info / profiler_metadata
// linked). Nothing of the corpus is copied into the repository.
//
// The same numbers must come out of both forms: each rank of the mixed job
// reports what the all-db job reports for it (kernel counts per step,
// operator families, time budget, the profiler's step accounting), and the
// text rank's loader gives the pinned budget of the db rank 1.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
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

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::RunTrainscope;

// Each row of |sql| on |db| as one CSV line (the query builds the line).
void WriteCsv(const std::string& db_path, const std::string& header, const std::string& sql,
              const fs::path& out) {
  sqlite3* db = nullptr;
  const std::string uri = "file:" + db_path + "?mode=ro&immutable=1";
  ASSERT_EQ(sqlite3_open_v2(uri.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr),
            SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  std::ofstream csv(out);
  csv << header << "\n";
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    csv << reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)) << "\n";
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

// µs with 3 decimals from integer ns, as torch_npu prints them.
std::string Micros(const std::string& ns) {
  return "printf('%d.%03d', (" + ns + ") / 1000, (" + ns + ") % 1000)";
}

// kernel_details.csv (compute tasks and communication ops, step by
// STEP_TIME; Wait Time 0: rank 1's db has no waitNs columns, which the db
// reader reads as 0) and step_trace_time.csv (analysis.db's StepTraceTime) of the
// db rank |rank|, in <dir>/rank<rank>_ascend_pt.
fs::path TextFormOfDbRank(const std::string& job, int rank, const fs::path& dir) {
  const std::string name = "rank" + std::to_string(rank) + "_ascend_pt";
  const fs::path source = fs::path(job) / name;
  const fs::path out = dir / name / "ASCEND_PROFILER_OUTPUT";
  fs::create_directories(out);
  for (const fs::directory_entry& entry : fs::directory_iterator(source)) {
    if (entry.is_regular_file())
      fs::create_symlink(entry.path(), dir / name / entry.path().filename());
  }
  const std::string db = (source / "ASCEND_PROFILER_OUTPUT" /
                          ("ascend_pytorch_profiler_" + std::to_string(rank) + ".db"))
                             .string();
  const std::string text = "(SELECT value FROM STRING_IDS WHERE id = ";
  WriteCsv(db,
           "Step Id,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait "
           "Time(us),Block Dim",
           "SELECT (SELECT s.id FROM STEP_TIME s WHERE k.st BETWEEN s.startNs AND s.endNs) || ',' "
           "|| k.stream || ',' || k.name || ',' || k.type || ',' || k.core || ',' || " +
               Micros("k.st") + " || ',' || " + Micros("k.en - k.st") + " || ',' || " +
               Micros("k.wait") +
               " || ',' || k.block FROM (SELECT t.startNs AS st, t.endNs AS en, t.streamId AS "
               "stream, " +
               text + "c.name) AS name, " + text + "c.opType) AS type, " + text +
               "c.taskType) AS core, 0 AS wait, c.blockDim AS block FROM "
               "TASK t JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId UNION ALL "
               "SELECT o.startNs, o.endNs, 'N/A', " +
               text + "o.opName), " + text + "o.opType), 'HCCL', 0, 0 FROM COMMUNICATION_OP o) k",
           out / "kernel_details.csv");
  WriteCsv((source / "ASCEND_PROFILER_OUTPUT" / "analysis.db").string(),
           "Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,"
           "Bubble,Communication(Not Overlapped and Exclude Receive),Preparing",
           "SELECT step || ',' || computing || ',' || communication_not_overlapped || ',' || "
           "overlapped || ',' || communication || ',' || free || ',' || stage || ',' || bubble || "
           "',' || communication_not_overlapped_and_exclude_receive || ',' || preparing FROM "
           "StepTraceTime",
           out / "step_trace_time.csv");
  return dir / name;
}

// rank -> the JSON of its selected step's blocks named in |keys|.
std::map<int64_t, std::string> StepBlocks(const std::string& input,
                                          const std::vector<std::string>& keys) {
  const CommandResult r = RunTrainscope({"analyze", input, "--json", "-", "--threads", "2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("runs, not one job"), std::string::npos) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  EXPECT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS);
  std::map<int64_t, std::string> out;
  for (simdjson::dom::element rank : doc["ranks"].get_array()) {
    std::string blocks;
    for (simdjson::dom::element step : rank["steps"].get_array()) {
      for (const std::string& key : keys) {
        // The budget names the file it read and how that file marks steps:
        // the one thing allowed to differ between the two forms.
        static const std::regex kLabels(R"re("(source|scope)":"[^"]*",)re");
        blocks += key + "=" + std::regex_replace(simdjson::minify(step[key]), kLabels, "") + "\n";
      }
    }
    out[int64_t(rank["rank"])] = blocks;
  }
  return out;
}

TEST(AscendMixedJobCorpusTest, TextAndDbRanksOfOneRunGiveTheNumbersOfTheDbJob) {
  TS_REQUIRE_CORPUS(testing::kMsinsightDbJob);
  const std::string job = corpus_path + "/" + testing::kMsinsightDbJob;
  const fs::path mixed = fs::path(::trainscope::testing::MakeTempDir("mixed_job"));
  fs::create_symlink(fs::path(job) / "rank0_ascend_pt", mixed / "rank0_ascend_pt");
  const fs::path text_rank = TextFormOfDbRank(job, 1, mixed);

  // The text form read by the text loader: the db rank's 191 events in step
  // 50 and its pinned budget (ascend_db_corpus_test.cc, from the SQL query).
  Result<model::RankProfile> text = LoadAscendRank(text_rank.string());
  ASSERT_TRUE(text.ok()) << text.status().message();
  Result<model::RankProfile> db = LoadAscendDbRank(job + "/rank1_ascend_pt");
  ASSERT_TRUE(db.ok()) << db.status().message();
  ASSERT_EQ(text->device_events.Steps(), std::vector<int32_t>{50});
  EXPECT_EQ(text->device_events.RowsOf(50).size(), 191u);
  for (const model::RankProfile* p : {&*text, &*db}) {
    auto budget = analysis::ComputeStepBudget(*p, 50);
    ASSERT_TRUE(budget.has_value());
    EXPECT_EQ(budget->budget.computation_ns, 8915634);
    EXPECT_EQ(budget->budget.communication_ns, 98590190);
    EXPECT_EQ(budget->budget.exposed_communication_ns, 94556050);
    EXPECT_EQ(budget->budget.total_ns, 129312183);
  }
  ASSERT_EQ(text->step_trace.size(), 1u);
  ASSERT_EQ(db->step_trace.size(), 1u);
  EXPECT_EQ(text->step_trace[0].computing_ns, db->step_trace[0].computing_ns);
  EXPECT_EQ(text->step_trace[0].communication_ns, db->step_trace[0].communication_ns);
  EXPECT_EQ(text->step_trace[0].free_ns, db->step_trace[0].free_ns);

  // The job: one run of two ranks, each with the numbers of the all-db job.
  const std::vector<std::string> keys = {"step", "kernels", "families", "breakdown", "step_trace"};
  const std::map<int64_t, std::string> from_mixed = StepBlocks(mixed.string(), keys);
  const std::map<int64_t, std::string> from_db = StepBlocks(job, keys);
  ASSERT_EQ(from_mixed.size(), 2u);
  ASSERT_EQ(from_db.size(), 2u);
  EXPECT_EQ(from_mixed.at(0), from_db.at(0));
  EXPECT_EQ(from_mixed.at(1), from_db.at(1));
  EXPECT_NE(from_mixed.at(1).find("\"count\":191"), std::string::npos) << from_mixed.at(1);
}

}  // namespace
}  // namespace trainscope::formats
