// The annotated trace of corpus profiles reads back (Kineto reader) with the
// same kernels per step as the profile had: an Ascend level1 rank
// (kernel_details.csv Step Id) and a Kineto trace whose steps come from
// launches (a kernel launched in step 550 that runs during 551 stays in 550).
#include <gtest/gtest.h>

#include <string>

#include "golden/cli_test_util.h"
#include "golden/export_test_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

// Exports |input| and reads the trace back; the per-step kernel counts of
// both runs.
void RoundTrip(const std::string& input, const std::string& tag,
               std::map<std::pair<int64_t, int64_t>, int64_t>* before,
               std::map<std::pair<int64_t, int64_t>, int64_t>* after, std::string* trace_text) {
  const std::string trace = MakeTempDir(tag) + "/trace.json";
  const CommandResult a =
      RunTrainscope({"analyze", input, "--perfetto", trace, "--json", "-", "--threads", "2"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const CommandResult b = RunTrainscope({"analyze", trace, "--json", "-", "--threads", "2"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  *before = KernelsPerStep(a.out);
  *after = KernelsPerStep(b.out);
  *trace_text = ReadFileBytes(trace);
}

TEST(ExportsCorpus, AscendLevel1RankReadsBackWithTheSameKernelsPerStep) {
  TS_REQUIRE_CORPUS("ascend/msinsight-pytorch-2rank-text-level1");
  std::map<std::pair<int64_t, int64_t>, int64_t> before, after;
  std::string text;
  RoundTrip(corpus_path + "/ascend/msinsight-pytorch-2rank-text-level1/rank0_ascend_pt",
            "export-rt-level1", &before, &after, &text);
  EXPECT_EQ(before, after);
  // kernel_details.csv: 191 rows, all Step Id 50 (python3 csv module).
  const std::map<std::pair<int64_t, int64_t>, int64_t> expected = {{{0, 50}, 191}};
  EXPECT_EQ(after, expected);
  EXPECT_EQ(Occurrences(text, "\"cat\":\"kernel\""), 191);
  // Its first row's Start Time(us), verbatim.
  EXPECT_NE(text.find("\"ts\":1736408883704643.212,"), std::string::npos);
}

TEST(ExportsCorpus, KinetoTraceReadsBackWithTheSameKernelsPerStep) {
  TS_REQUIRE_CORPUS("kineto/hta_a100_16rank_job_rank0");
  std::map<std::pair<int64_t, int64_t>, int64_t> before, after;
  std::string text;
  RoundTrip(corpus_path + "/kineto/hta_a100_16rank_job_rank0/rank0.json.gz", "export-rt-a100",
            &before, &after, &text);
  EXPECT_EQ(before, after);
  const std::map<std::pair<int64_t, int64_t>, int64_t> expected = {
      {{0, 550}, 1780}, {{0, 551}, 1075}, {{0, 552}, 1075}, {{0, 553}, 1075}, {{0, 554}, 1075}};
  EXPECT_EQ(after, expected);
  // The raw trace's device events (python3 json: ph X with cat kernel /
  // gpu_memcpy / gpu_memset): 6080, 1390, 277; the kernels sum to 6080.
  EXPECT_EQ(Occurrences(text, "\"cat\":\"kernel\""), 6080);
  EXPECT_EQ(Occurrences(text, "\"cat\":\"gpu_memcpy\""), 1390);
  EXPECT_EQ(Occurrences(text, "\"cat\":\"gpu_memset\""), 277);
}

}  // namespace
}  // namespace trainscope::testing
