// Remedies fit the platform (issue 13 item 4): on every corpus profile the
// JSON names the platform, and no finding tells a GPU job an Ascend switch
// or an Ascend job a CUDA/ROCm one. The platform of each corpus folder is
// known from its SOURCE.txt (an Ascend export, NVIDIA V100/A100/H100/H800/
// B200 traces, AMD MI250/MI300X traces).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>
#include <string_view>
#include <vector>

#include "corpus/corpus_inputs.h"
#include "golden/cli_test_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

// Switches and tools of one platform only.
const std::vector<std::string_view> kAscendOnly = {"TASK_QUEUE_ENABLE",
                                                   "CPU_AFFINITY_CONF",
                                                   "npu_",
                                                   "torch_npu",
                                                   "MindSpeed",
                                                   "hccn_tool",
                                                   "HCCL_",
                                                   "npu-smi",
                                                   "HF32",
                                                   "aic_mac_ratio"};
const std::vector<std::string_view> kGpuOnly = {
    "CUDA graphs", "nvidia-smi", "NCCL_", "rocm-smi", "HIP graphs", "Liger", "nccl-tests"};

std::string Expected(const std::string& input) {
  if (input.find("/ascend/") != std::string::npos) return "ascend";
  if (input.find("/h100/") != std::string::npos) return "gpu-any";  // of the H100 vs MI300X pair
  if (input.find("mi250") != std::string::npos || input.find("mi300") != std::string::npos) {
    return "rocm";
  }
  return "gpu-any";  // cuda, or gpu when the trace names no device
}

TEST(PlatformRemediesCorpus, EveryFindingNamesOnlyItsPlatformsSwitches) {
  TS_REQUIRE_CORPUS("kineto");
  const std::vector<std::string> inputs = CorpusInputs(corpus_path);
  ASSERT_GT(inputs.size(), 20u);
  size_t checked = 0, gpu_findings = 0, ascend_findings = 0;
  for (const std::string& input : inputs) {
    SCOPED_TRACE(input);
    const CommandResult r = RunTrainscope({"analyze", input, "--json", "-", "--threads", "2"});
    if (r.exit_code == 2) continue;  // declined inputs (the .db export), checked elsewhere
    ASSERT_EQ(r.exit_code, 0) << r.err;
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS);
    std::string_view platform;
    ASSERT_EQ(doc["platform"].get(platform), simdjson::SUCCESS);
    const std::string expected = Expected(input);
    if (expected == "gpu-any") {
      EXPECT_TRUE(platform == "cuda" || platform == "gpu") << platform;
    } else {
      EXPECT_EQ(platform, expected);
    }
    const bool ascend = platform == "ascend";
    simdjson::dom::array findings;
    ASSERT_EQ(doc["findings"].get(findings), simdjson::SUCCESS);
    for (simdjson::dom::element finding : findings) {
      std::string_view id, remedy;
      ASSERT_EQ(finding["id"].get(id), simdjson::SUCCESS);
      ASSERT_EQ(finding["remedy"].get(remedy), simdjson::SUCCESS);
      for (std::string_view word : ascend ? kGpuOnly : kAscendOnly) {
        EXPECT_EQ(remedy.find(word), std::string_view::npos)
            << id << " on " << platform << " names '" << word << "': " << remedy;
      }
      ++(ascend ? ascend_findings : gpu_findings);
    }
    ++checked;
  }
  EXPECT_GE(checked, inputs.size() - 2);
  // Both kinds of jobs have findings to check, or the test proves nothing.
  EXPECT_GT(gpu_findings, 10u);
  EXPECT_GT(ascend_findings, 5u);
}

// The Qwen3 0.6B job of the corpus is pipeline-parallel (PP=2, DP=2 in its
// profiler_metadata.json): its send/receive waits and the unequal stages are
// pipeline findings, and its exposed collectives get Megatron/MindSpeed's
// overlap switches, not FSDP prefetch (issue 13 acceptance).
TEST(PipelineCorpus, TheQwen3PipelineJobGetsPipelineFindings) {
  TS_REQUIRE_CORPUS("ascend");
  const std::string input =
      corpus_path + "/ascend/msinsight-st-qwen3-0.6b-4rank-level2-cann8.3.RC1";
  const CommandResult r = RunTrainscope({"analyze", input, "--json", "-", "--threads", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS);
  simdjson::dom::array findings;
  ASSERT_EQ(doc["findings"].get(findings), simdjson::SUCCESS);
  bool bubble = false, imbalance = false;
  for (simdjson::dom::element finding : findings) {
    std::string_view id, remedy;
    ASSERT_EQ(finding["id"].get(id), simdjson::SUCCESS);
    ASSERT_EQ(finding["remedy"].get(remedy), simdjson::SUCCESS);
    EXPECT_EQ(remedy.find("FSDP"), std::string_view::npos) << id << ": " << remedy;
    if (id == "pipeline-bubble") bubble = true;
    if (id == "stage-imbalance") {
      imbalance = true;
      simdjson::dom::array ranks;
      ASSERT_EQ(finding["ranks"].get(ranks), simdjson::SUCCESS);
      // The last stage (ranks 2 and 3) runs the 151,936-wide output layer and the loss.
      ASSERT_EQ(ranks.size(), 2u);
      EXPECT_EQ(int64_t(ranks.at(0)), 2);
      EXPECT_EQ(int64_t(ranks.at(1)), 3);
    }
  }
  EXPECT_TRUE(bubble);
  EXPECT_TRUE(imbalance);
}

}  // namespace
}  // namespace trainscope::testing
