// Class 6, one bad rank: a rank that cannot be loaded is listed in the input
// health of every report (text, JSON failed_inputs, HTML) and the others are
// analysed (exit 0); when no rank loads, exit 2 naming each.
#include <gtest/gtest.h>

#include <filesystem>

#include "hostile/load_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kBadHeader = "Name,Foo\nx,1\n";

TEST(HostileLoadBadRank, OneUnusableRankIsReportedAndTheRestAnalysed) {
  const std::string dir = MakeSynthJob("load-bad-rank", 3);
  ASSERT_FALSE(dir.empty());
  const std::string rank1 = SynthRankDir(dir + "/job", 1);
  ASSERT_TRUE(WriteBytes(SynthOutputFile(dir + "/job", 1, "kernel_details.csv"), kBadHeader));
  const std::string out = MakeTempDir("load-bad-rank-out");
  const TreeSnapshot before = SnapshotTree(dir);

  CommandResult run = RunTrainscopeIn(
      dir, {"analyze", "job", "--no-color", "--json", out + "/r.json", "--html", out + "/r.html"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const std::string rank1_rel = fs::relative(rank1, dir).string();
  EXPECT_TRUE(Has(run.out, "Input: 2 ranks")) << run.out;
  EXPECT_TRUE(Has(run.err, "trainscope: warning: 1 of 3 ranks not loaded")) << run.err;
  EXPECT_TRUE(
      Has(run.out, "not loaded: " + rank1_rel + "/ASCEND_PROFILER_OUTPUT/kernel_details.csv"))
      << run.out;
  // Row accounting holds for what was read.
  EXPECT_TRUE(Has(run.out, "rows read = ")) << run.out;

  const std::string json = ReadFileBytes(out + "/r.json");
  EXPECT_TRUE(Has(json, "\"failed_inputs\": [")) << json.substr(0, 800);
  EXPECT_TRUE(Has(json, "\"path\": \"" + rank1_rel + "\"")) << json.substr(0, 800);
  const std::string html = ReadFileBytes(out + "/r.html");
  EXPECT_TRUE(Has(html, "not loaded")) << "HTML lacks the failed rank";
  EXPECT_TRUE(Has(html, rank1_rel));
  EXPECT_EQ(DiffTrees(before, SnapshotTree(dir)), "");
}

TEST(HostileLoadBadRank, NoRankLoadsIsExit2WithEachMessage) {
  const std::string dir = MakeSynthJob("load-no-rank");
  ASSERT_FALSE(dir.empty());
  for (int rank : {0, 1}) {
    ASSERT_TRUE(WriteBytes(SynthOutputFile(dir + "/job", rank, "kernel_details.csv"), kBadHeader));
  }
  const TreeSnapshot before = SnapshotTree(dir);
  CommandResult run = RunTrainscopeIn(dir, {"analyze", "job"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(Has(run.err, "no rank could be loaded (2 tried)")) << run.err;
  for (int rank : {0, 1}) {
    EXPECT_TRUE(Has(run.err, fs::relative(SynthRankDir(dir + "/job", rank), dir).string() +
                                 "/ASCEND_PROFILER_OUTPUT/kernel_details.csv"))
        << run.err;
  }
  EXPECT_TRUE(Has(run.err, "hint: ")) << run.err;
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(DiffTrees(before, SnapshotTree(dir)), "");
}

TEST(HostileLoadBadRank, UnreadableTraceAmongGoodOnesIsListed) {
  const std::string dir = MakeTempDir("load-bad-trace");
  ASSERT_TRUE(WriteBytes(dir + "/job/rank0.json", KinetoTraceJson(true)));
  // Passes the sniff (a top-level traceEvents key) but holds no valid event.
  ASSERT_TRUE(WriteBytes(dir + "/job/rank1.json", "{\"traceEvents\": [@@@ not json]}"));
  const TreeSnapshot before = SnapshotTree(dir);
  CommandResult run = RunTrainscopeIn(dir, {"analyze", "job", "--no-color"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(Has(run.out, "Input: 1 ranks")) << run.out;
  EXPECT_TRUE(Has(run.out, "not loaded: job/rank1.json: no valid trace event")) << run.out;
  EXPECT_EQ(DiffTrees(before, SnapshotTree(dir)), "");
}

}  // namespace
}  // namespace trainscope::testing
