// Class 6, no usable data: inputs that load but hold no device kernels and
// no step times in any rank exit 2 with the reason and what to profile,
// instead of exit 0 with an empty report. Partial ranks (step times only)
// stay usable.
#include <gtest/gtest.h>

#include <filesystem>

#include "hostile/load_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

namespace fs = std::filesystem;

TEST(HostileLoadNoData, HeaderOnlyKernelDetailsIsExit2) {
  const std::string dir = MakeSynthJob("load-nodata-csv", 1);
  ASSERT_FALSE(dir.empty());
  const std::string kernels = SynthOutputFile(dir + "/job", 0, "kernel_details.csv");
  const std::string csv = ReadFileBytes(kernels);
  ASSERT_TRUE(WriteBytes(kernels, csv.substr(0, csv.find('\n') + 1)));
  ASSERT_TRUE(fs::remove(SynthOutputFile(dir + "/job", 0, "step_trace_time.csv")));
  const TreeSnapshot before = SnapshotTree(dir);
  CommandResult run = RunTrainscopeIn(dir, {"analyze", "job"});
  EXPECT_EQ(run.exit_code, 2) << run.err << run.out;
  EXPECT_TRUE(Has(run.err, "no usable data")) << run.err;
  EXPECT_TRUE(Has(run.err, "no NPU kernels in kernel_details.csv")) << run.err;
  EXPECT_TRUE(Has(run.err, "hint: ")) << run.err;
  EXPECT_TRUE(Has(run.err, "ProfilerActivity.NPU")) << run.err;
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(DiffTrees(before, SnapshotTree(dir)), "");
}

TEST(HostileLoadNoData, CpuOnlyTraceIsExit2WithTheActivitiesHint) {
  const std::string dir = MakeTempDir("load-nodata-cpu");
  ASSERT_TRUE(WriteBytes(dir + "/cpu.json", KinetoTraceJson(/*with_kernel=*/false)));
  const TreeSnapshot before = SnapshotTree(dir);
  CommandResult run = RunTrainscopeIn(dir, {"analyze", "cpu.json"});
  EXPECT_EQ(run.exit_code, 2) << run.err << run.out;
  EXPECT_TRUE(Has(run.err, "cpu.json: no GPU/NPU kernels")) << run.err;
  EXPECT_TRUE(Has(run.err, "ProfilerActivity.CUDA")) << run.err;
  EXPECT_EQ(DiffTrees(before, SnapshotTree(dir)), "");
}

TEST(HostileLoadNoData, EmptyTraceIsExit2) {
  const std::string dir = MakeTempDir("load-nodata-empty");
  ASSERT_TRUE(WriteBytes(dir + "/empty.json", "{\"traceEvents\": []}"));
  const TreeSnapshot before = SnapshotTree(dir);
  CommandResult run = RunTrainscopeIn(dir, {"analyze", "empty.json", "--json", "-"});
  EXPECT_EQ(run.exit_code, 2) << run.err << run.out;
  EXPECT_TRUE(Has(run.err, "no usable data")) << run.err;
  EXPECT_EQ(run.out, "");  // no half report on stdout
  EXPECT_EQ(DiffTrees(before, SnapshotTree(dir)), "");
}

TEST(HostileLoadNoData, NoDataMessageAlsoNamesWhatWasSkipped) {
  const std::string dir = MakeTempDir("load-nodata-mixed");
  ASSERT_TRUE(WriteBytes(dir + "/job/cpu.json", KinetoTraceJson(/*with_kernel=*/false)));
  std::string gz = GzipBytes(KinetoTraceJson(true));
  gz[3] = static_cast<char>(0xe0);
  ASSERT_TRUE(WriteBytes(dir + "/job/gpu.json.gz", gz));
  const TreeSnapshot before = SnapshotTree(dir);
  CommandResult run = RunTrainscopeIn(dir, {"analyze", "job"});
  EXPECT_EQ(run.exit_code, 2) << run.err << run.out;
  EXPECT_TRUE(Has(run.err, "job/cpu.json: no GPU/NPU kernels")) << run.err;
  EXPECT_TRUE(Has(run.err, "skipped: job/gpu.json.gz: not a gzip stream: ")) << run.err;
  EXPECT_EQ(DiffTrees(before, SnapshotTree(dir)), "");
}

TEST(HostileLoadNoData, StepTimesOnlyRankIsStillUsable) {
  const std::string dir = MakeSynthJob("load-steps-only", 1);
  ASSERT_FALSE(dir.empty());
  ASSERT_TRUE(fs::remove(SynthOutputFile(dir + "/job", 0, "kernel_details.csv")));
  const TreeSnapshot before = SnapshotTree(dir);
  CommandResult run = RunTrainscopeIn(dir, {"analyze", "job", "--no-color"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(Has(run.out, "Input: 1 ranks")) << run.out;
  EXPECT_TRUE(Has(run.out, "kernel_details.csv")) << run.out;  // said to be missing
  EXPECT_EQ(DiffTrees(before, SnapshotTree(dir)), "");
}

}  // namespace
}  // namespace trainscope::testing
