// The exports of `analyze` (docs/exports.md): the annotated trace reads back
// with the same kernels per step, the SQLite row counts equal the JSON
// report's, the CSV tables are pinned by golden files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "golden/cli_test_util.h"
#include "golden/export_test_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

namespace fs = std::filesystem;

// The first "Start Time(us)" cell of a kernel_details.csv, as written.
std::string FirstStartCell(const std::string& csv_path) {
  std::ifstream in(csv_path);
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  auto cells = [](const std::string& line) {
    std::vector<std::string> out;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) out.push_back(cell);
    return out;
  };
  const auto names = cells(header);
  const auto values = cells(row);
  for (size_t k = 0; k < names.size() && k < values.size(); ++k) {
    if (names[k].find("Start Time(us)") != std::string::npos) {
      std::string v = values[k];
      while (!v.empty() && (v.back() == '\t' || v.back() == ' ' || v.back() == '\r')) v.pop_back();
      return v;
    }
  }
  return "";
}

struct SynthJob {
  std::string dir;
  std::string job;
};

SynthJob MakeSynth(const std::string& tag, int ranks) {
  SynthJob s;
  s.dir = MakeTempDir(tag);
  s.job = s.dir + "/job";
  const CommandResult r =
      RunTrainscope({"synth", "--out", s.job, "--ranks", std::to_string(ranks)});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return s;
}

TEST(ExportsCli, PerfettoTraceOfASynthRankReadsBackWithTheSameKernelsPerStep) {
  const SynthJob s = MakeSynth("export-rt-synth", 1);
  const std::string trace = s.dir + "/trace.json";
  const CommandResult a =
      RunTrainscope({"analyze", s.job, "--perfetto", trace, "--json", "-", "--threads", "2"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const CommandResult b = RunTrainscope({"analyze", trace, "--json", "-", "--threads", "2"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const auto before = KernelsPerStep(a.out);
  const auto after = KernelsPerStep(b.out);
  EXPECT_EQ(before, after);
  // kernel_details.csv has 2511 rows per step (python3 csv.DictReader,
  // counted by Step Id: 5, 6, 7), none of them a copy.
  const std::map<std::pair<int64_t, int64_t>, int64_t> expected = {
      {{0, 5}, 2511}, {{0, 6}, 2511}, {{0, 7}, 2511}};
  EXPECT_EQ(after, expected);

  const std::string text = ReadFileBytes(trace);
  // Every row an X slice on its stream, the CSV's time written as it was
  // (int64 ns to three decimals, no double in between).
  EXPECT_EQ(Occurrences(text, "\"cat\":\"kernel\""), 3 * 2511);
  const std::string start = FirstStartCell(SynthOutputFile(s.job, 0, "kernel_details.csv"));
  ASSERT_FALSE(start.empty());
  EXPECT_NE(text.find("\"ts\":" + start + ","), std::string::npos) << start;
  // Ranks as processes, streams as threads, trainscope's tracks.
  EXPECT_NE(text.find("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"tid\":0,\"args\":{"
                      "\"name\":\"rank 0\"}}"),
            std::string::npos);
  EXPECT_NE(text.find("(compute)\"}}"), std::string::npos);
  EXPECT_NE(text.find("\"name\":\"ProfilerStep#6\""), std::string::npos);
  EXPECT_NE(text.find("\"name\":\"selected step"), std::string::npos);
  EXPECT_NE(text.find("\"name\":\"unfused-rmsnorm/fwd\""), std::string::npos);
  EXPECT_NE(
      text.find("\"ph\":\"i\",\"s\":\"p\",\"cat\":\"trainscope\",\"name\":\"unfused-rmsnorm\""),
      std::string::npos);
  EXPECT_NE(text.find("\"fingerprint\":\"unfused-rmsnorm/fwd\""), std::string::npos);
}

TEST(ExportsCli, SqliteRowCountsEqualTheJsonReport) {
  const SynthJob s = MakeSynth("export-sqlite", 2);
  const std::string db = s.dir + "/out.db";
  const CommandResult a =
      RunTrainscope({"analyze", s.job, "--sqlite", db, "--json", "-", "--threads", "2"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const auto per_step = KernelsPerStep(a.out);
  ASSERT_EQ(per_step.size(), 6u);
  for (const auto& [key, count] : per_step) {
    SCOPED_TRACE(::testing::Message() << "rank " << key.first << " step " << key.second);
    EXPECT_EQ(
        SqliteCount(db, "SELECT count(*) FROM kernels WHERE rank=" + std::to_string(key.first) +
                            " AND step=" + std::to_string(key.second) +
                            " AND kind IN ('compute','communication')"),
        count);
  }
  EXPECT_EQ(SqliteCount(db, "SELECT count(*) FROM steps"), 6);
  EXPECT_EQ(SqliteCount(db, "SELECT count(*) FROM steps WHERE selected=1"), 2);
  // Both ranks' kernel_details.csv: 7533 rows each (python3 csv module).
  EXPECT_EQ(SqliteCount(db, "SELECT count(*) FROM kernels"), 2 * 7533);
  // The findings of the JSON, one row each.
  const size_t findings = Occurrences(a.out, "\"gain_model\":");
  EXPECT_GT(findings, 0u);
  EXPECT_EQ(SqliteCount(db, "SELECT count(*) FROM findings"), static_cast<int64_t>(findings));
  EXPECT_EQ(SqliteCount(db, "SELECT count(DISTINCT finding) FROM finding_rows"),
            static_cast<int64_t>(findings));
  EXPECT_EQ(SqliteCount(db, "SELECT count(*) FROM ranks"), 2);
  EXPECT_EQ(SqliteCount(db, "SELECT count(*) FROM rank_budgets"), 2);
  EXPECT_GT(SqliteCount(db, "SELECT count(*) FROM motif_instances"), 0);
  EXPECT_GT(SqliteCount(db, "SELECT count(*) FROM collectives"), 0);
  // Each kernel tagged with a fingerprint lies inside an instance of it.
  EXPECT_EQ(SqliteCount(db,
                        "SELECT count(*) FROM kernels k WHERE fingerprint IS NOT NULL AND NOT "
                        "EXISTS (SELECT 1 FROM motif_instances i JOIN motifs m ON m.rank=i.rank "
                        "AND m.step IS i.step AND m.motif=i.motif WHERE i.rank=k.rank AND i.step "
                        "IS k.step AND m.label=k.fingerprint AND k.start_ns>=i.start_ns AND "
                        "k.end_ns<=i.end_ns)"),
            0);
  // A second run replaces the database it wrote.
  const CommandResult again = RunTrainscope({"analyze", s.job, "--sqlite", db, "--threads", "2"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(SqliteCount(db, "SELECT count(*) FROM kernels"), 2 * 7533);
}

TEST(ExportsCli, CsvTablesOfTheTinyJobMatchTheGoldenFiles) {
  const std::string dir = MakeTempDir("export-csv") + "/tables";
  const CommandResult r =
      RunTrainscope({"analyze", DataDir() + "/ascend_tiny", "--csv", dir, "--threads", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("CSV tables written to " + dir), std::string::npos);
  for (const char* name :
       {"steps.csv", "steps_summary.csv", "families.csv", "operators.csv", "collectives.csv",
        "findings.csv", "finding_ranks.csv", "budgets.csv", "trainscope-csv-manifest.txt"}) {
    SCOPED_TRACE(name);
    const std::string text = ReadFileBytes(dir + "/" + name);
    ASSERT_FALSE(text.empty());
    EXPECT_EQ(CompareGolden(std::string("csv_ascend_tiny/") + name, text), "");
  }
  // Written again over its own files: allowed.
  const CommandResult again =
      RunTrainscope({"analyze", DataDir() + "/ascend_tiny", "--csv", dir, "--threads", "1"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
}

TEST(ExportsCli, ATraceWrittenIntoTheJobIsPassedOverByTheNextWalk) {
  const SynthJob s = MakeSynth("export-in-job", 1);
  const std::string trace = s.job + "/trace.json";
  CommandResult r = RunTrainscope({"analyze", s.job, "--perfetto", trace, "--threads", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The walk of the job: one rank, no second run from the trace.
  r = RunTrainscope({"analyze", s.job, "--json", "-", "--threads", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("runs"), std::string::npos) << r.err;
  EXPECT_EQ(KernelsPerStep(r.out).size(), 3u);
  EXPECT_EQ(r.out.find("trace.json"), std::string::npos);
  // Named, it is a trace like any other.
  r = RunTrainscope({"analyze", trace, "--json", "-", "--threads", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(KernelsPerStep(r.out).size(), 3u);
}

TEST(ExportsCli, OnlyTheAnalysedRunIsExported) {
  // The tiny job and a synth job both claim ranks 0 and 1: two runs, the
  // first (input order, equal size) analysed; the other's rows go.
  const SynthJob s = MakeSynth("export-two-runs", 2);
  const std::string db = s.dir + "/out.db";
  const std::string trace = s.dir + "/trace.json";
  const CommandResult r = RunTrainscope({"analyze", DataDir() + "/ascend_tiny", s.job, "--sqlite",
                                         db, "--perfetto", trace, "--threads", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("the inputs are 2 runs"), std::string::npos) << r.err;
  EXPECT_EQ(SqliteCount(db, "SELECT count(*) FROM ranks WHERE source LIKE '%ascend_tiny%'"), 2);
  EXPECT_EQ(SqliteCount(db, "SELECT count(*) FROM ranks"), 2);
  // The tiny job's kernels only (its JSON: 25 + 25 per rank).
  EXPECT_EQ(SqliteCount(db,
                        "SELECT count(*) FROM kernels WHERE kind IN ('compute', "
                        "'communication')"),
            100);
  EXPECT_EQ(SqliteCount(db, "SELECT count(*) FROM steps"), 4);
  EXPECT_EQ(Occurrences(ReadFileBytes(trace), "\"cat\":\"kernel\""), 100);
}

}  // namespace
}  // namespace trainscope::testing
