// Class 6, silent drops: every *.json / *.json.gz under a job directory that
// is not taken as a profile is listed with the reason in the input health
// (text, JSON skipped_inputs, HTML); long leading metadata before
// "traceEvents" does not hide a trace.
#include <gtest/gtest.h>

#include <filesystem>

#include "hostile/load_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

TEST(HostileLoadSkipped, CorruptGzipHeaderIsReportedNotDropped) {
  const std::string dir = MakeTempDir("load-gz");
  ASSERT_TRUE(WriteBytes(dir + "/job/good.json", KinetoTraceJson(true)));
  std::string gz = GzipBytes(KinetoTraceJson(true));
  gz[3] = static_cast<char>(0xe0);  // reserved FLG bits set: zlib rejects the header
  ASSERT_TRUE(WriteBytes(dir + "/job/bad.json.gz", gz));
  std::string no_magic = GzipBytes(KinetoTraceJson(true));
  no_magic[0] = 'x';
  ASSERT_TRUE(WriteBytes(dir + "/job/nomagic.json.gz", no_magic));
  const std::string out = MakeTempDir("load-gz-out");
  const TreeSnapshot before = SnapshotTree(dir);

  CommandResult run = RunTrainscopeIn(
      dir, {"analyze", "job", "--no-color", "--json", out + "/r.json", "--html", out + "/r.html"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(Has(run.out, "skipped: job/bad.json.gz: not a gzip stream: ")) << run.out;
  EXPECT_TRUE(
      Has(run.out, "skipped: job/nomagic.json.gz: not a gzip stream: starts with bytes 78 8b"))
      << run.out;
  const std::string json = ReadFileBytes(out + "/r.json");
  EXPECT_TRUE(Has(json, "\"path\": \"job/bad.json.gz\"")) << json.substr(0, 600);
  EXPECT_TRUE(Has(json, "not a gzip stream")) << json.substr(0, 600);
  const std::string html = ReadFileBytes(out + "/r.html");
  EXPECT_TRUE(Has(html, "job/bad.json.gz"));
  EXPECT_EQ(DiffTrees(before, SnapshotTree(dir)), "");
}

TEST(HostileLoadSkipped, OnlyACorruptGzipIsExit2NamingIt) {
  const std::string dir = MakeTempDir("load-gz-only");
  std::string gz = GzipBytes(KinetoTraceJson(true));
  gz[3] = static_cast<char>(0xe0);
  ASSERT_TRUE(WriteBytes(dir + "/job/bad.json.gz", gz));
  const TreeSnapshot before = SnapshotTree(dir);
  CommandResult run = RunTrainscopeIn(dir, {"analyze", "job"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(Has(run.err, "job: no profile found")) << run.err;
  EXPECT_TRUE(Has(run.err, "job/bad.json.gz: not a gzip stream: ")) << run.err;
  EXPECT_TRUE(Has(run.err, "hint: ")) << run.err;
  // Given directly, the same file is an error naming it.
  run = RunTrainscopeIn(dir, {"analyze", "job/bad.json.gz"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(Has(run.err, "job/bad.json.gz: not a profile this tool reads: not a gzip stream: "))
      << run.err;
  EXPECT_EQ(DiffTrees(before, SnapshotTree(dir)), "");
}

TEST(HostileLoadSkipped, LongLeadingMetadataStillATrace) {
  const std::string dir = MakeTempDir("load-meta");
  const std::string trace = KinetoTraceJson(true, 1 << 20);  // 1 MiB before "traceEvents"
  ASSERT_GT(trace.find("\"traceEvents\": ["), size_t{1} << 20);
  ASSERT_TRUE(WriteBytes(dir + "/job/a/rank0.json", trace));
  ASSERT_TRUE(WriteBytes(dir + "/job/b/rank1.json.gz", GzipBytes(trace)));
  const TreeSnapshot before = SnapshotTree(dir);
  CommandResult run = RunTrainscopeIn(dir, {"analyze", "job", "--no-color"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  // Both read as traces. They are the same trace, both claiming rank 0 of a
  // world of 1, so they are two runs, never one job with rank 0 twice
  // (docs/clusters.md §0).
  EXPECT_TRUE(Has(run.out, "The inputs are 2 runs, not one job")) << run.out;
  EXPECT_TRUE(Has(run.out, "\n    job/a/rank0.json\n")) << run.out;
  EXPECT_TRUE(Has(run.out, "\n    job/b/rank1.json.gz\n")) << run.out;
  EXPECT_TRUE(Has(run.out, "Input: 1 rank")) << run.out;
  EXPECT_FALSE(Has(run.out, "  skipped: ")) << run.out;
  EXPECT_EQ(DiffTrees(before, SnapshotTree(dir)), "");
}

TEST(HostileLoadSkipped, NonTraceJsonIsListedOwnOutputsAreNot) {
  const std::string dir = MakeSynthJob("load-nontrace");
  ASSERT_FALSE(dir.empty());
  ASSERT_TRUE(
      WriteBytes(dir + "/job/config.json", "{\"lr\": 0.1, \"nested\": {\"traceEvents\": []}}"));
  ASSERT_TRUE(WriteBytes(dir + "/job/empty.json", ""));
  ASSERT_TRUE(WriteBytes(dir + "/job/list.json", "[1, 2, 3]"));
  // The demo's own outputs in the job dir: report.html, a --json report.
  ASSERT_TRUE(WriteBytes(dir + "/job/report.html", "<html></html>"));
  CommandResult first = RunTrainscopeIn(dir, {"analyze", "job", "--json", "job/report.json"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const TreeSnapshot before = SnapshotTree(dir);

  CommandResult run = RunTrainscopeIn(dir, {"analyze", "job", "--no-color"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(
      Has(run.out, "skipped: job/config.json: not a trace: no top-level \"traceEvents\" key"))
      << run.out;
  EXPECT_TRUE(Has(run.out, "skipped: job/empty.json: not a trace: empty")) << run.out;
  EXPECT_TRUE(Has(run.out,
                  "skipped: job/list.json: not a trace: a JSON array whose first element is not "
                  "a trace event"))
      << run.out;
  EXPECT_FALSE(Has(run.out, "report.json")) << run.out;        // trainscope's own output
  EXPECT_FALSE(Has(run.out, "ground_truth.json")) << run.out;  // synth's answer key
  EXPECT_TRUE(Has(run.out, "Input: 2 ranks")) << run.out;
  EXPECT_EQ(DiffTrees(before, SnapshotTree(dir)), "");
}

}  // namespace
}  // namespace trainscope::testing
