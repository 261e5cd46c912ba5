// The workload check of `compare` on real captures (docs/compare.md
// "Workload check"): a ResNet-50 trace against a synth LLM job is two
// workloads, said first and without a "slower" headline; the public Qwen
// pair on two GPUs is one workload on two platforms. Skipped without the
// shared corpus.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>

#include "golden/cli_test_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

struct WorkloadRead {
  int exit_code = -1;
  std::string verdict, workload, compare_verdict;
  double distance = -1;
  bool step_change_null = false;
};

WorkloadRead CompareWorkloads(const std::string& base, const std::string& next) {
  const CommandResult r = RunTrainscope({"compare", base, next, "--json", "-"});
  WorkloadRead read;
  read.exit_code = r.exit_code;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  EXPECT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.err;
  if (doc.is_null()) return read;
  std::string_view v;
  EXPECT_EQ(doc["workload"]["verdict"].get(v), simdjson::SUCCESS);
  read.workload = std::string(v);
  EXPECT_EQ(doc["verdict"].get(v), simdjson::SUCCESS);
  read.compare_verdict = std::string(v);
  EXPECT_EQ(doc["workload"]["kernel_mix_distance"].get(read.distance), simdjson::SUCCESS);
  read.step_change_null = doc["step_change_pct"].is_null();
  return read;
}

TEST(CompareWorkloadCorpus, ResNetAgainstSynthLlmIsTwoWorkloads) {
  TS_REQUIRE_CORPUS("kineto/kineto_tbplugin_resnet50_2021_oldschema");
  const std::string dir = MakeTempDir("compare_workload");
  const CommandResult made =
      RunTrainscope({"synth", "--out", dir + "/llm", "--ranks", "2", "--layers", "2"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const WorkloadRead w = CompareWorkloads(
      corpus_path + "/kineto/kineto_tbplugin_resnet50_2021_oldschema", dir + "/llm");
  EXPECT_EQ(w.exit_code, 0);
  EXPECT_EQ(w.workload, "different");
  // Convolutions and batch norm against matmuls, attention and the loss:
  // 0.63 when measured (docs/compare.md), above the 0.5 line.
  EXPECT_GT(w.distance, 0.5);
  EXPECT_EQ(w.compare_verdict.rfind("not the same workload", 0), 0u) << w.compare_verdict;
  EXPECT_EQ(w.compare_verdict.find("slower"), std::string::npos);
  EXPECT_TRUE(w.step_change_null);
}

TEST(CompareWorkloadCorpus, QwenOnTwoGpusIsOneWorkload) {
  TS_REQUIRE_CORPUS("kineto/tracelens_qwen1.5_0.5b_h100_vs_mi300x");
  const std::string dir = corpus_path + "/kineto/tracelens_qwen1.5_0.5b_h100_vs_mi300x";
  const WorkloadRead w = CompareWorkloads(dir + "/h100", dir + "/mi300");
  EXPECT_EQ(w.workload, "same");
  EXPECT_LT(w.distance, 0.5);
  EXPECT_FALSE(w.step_change_null);
}

TEST(CompareWorkloadCorpus, SameJobTwiceIsOneWorkload) {
  TS_REQUIRE_CORPUS("kineto/hta_trace_diff_pairs/trace_diff");
  const std::string dir = corpus_path + "/kineto/hta_trace_diff_pairs/trace_diff";
  const WorkloadRead w = CompareWorkloads(dir + "/control", dir + "/test");
  EXPECT_EQ(w.workload, "same");
  EXPECT_LT(w.distance, 0.2);
}

}  // namespace
}  // namespace trainscope::testing
