// Remedies fit the platform: on every corpus profile the
// JSON names the platform, and no finding tells a GPU job an Ascend switch
// or an Ascend job a CUDA/ROCm one. The platform of each corpus folder is
// known from its SOURCE.txt (an Ascend export, NVIDIA V100/A100/H100/H800/
// B200 traces, AMD MI250/MI300X traces). Called by the corpus JSON sweep
// (json_sanity_corpus_test.cc), which runs `analyze --json` once an input.
#pragma once

#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace trainscope::testing {

// Switches and tools of one platform only.
inline const std::vector<std::string_view>& AscendOnlyWords() {
  static const std::vector<std::string_view> words = {"TASK_QUEUE_ENABLE",
                                                      "CPU_AFFINITY_CONF",
                                                      "npu_",
                                                      "torch_npu",
                                                      "MindSpeed",
                                                      "hccn_tool",
                                                      "HCCL_",
                                                      "npu-smi",
                                                      "HF32",
                                                      "aic_mac_ratio"};
  return words;
}
inline const std::vector<std::string_view>& GpuOnlyWords() {
  static const std::vector<std::string_view> words = {
      "CUDA graphs", "nvidia-smi", "NCCL_", "rocm-smi", "HIP graphs", "Liger", "nccl-tests"};
  return words;
}

// The platform a corpus input's JSON must name: "gpu-any" is cuda, or gpu
// when the trace names no device.
inline std::string ExpectedPlatform(const std::string& input) {
  if (input.find("/ascend/") != std::string::npos) return "ascend";
  if (input.find("/h100/") != std::string::npos) return "gpu-any";  // of the H100 vs MI300X pair
  if (input.find("mi250") != std::string::npos || input.find("mi300") != std::string::npos) {
    return "rocm";
  }
  return "gpu-any";
}

struct RemedyCounts {
  size_t gpu_findings = 0;
  size_t ascend_findings = 0;
};

inline void CheckPlatformRemedies(const std::string& input, simdjson::dom::element doc,
                                  RemedyCounts* counts) {
  std::string_view platform;
  ASSERT_EQ(doc["platform"].get(platform), simdjson::SUCCESS);
  const std::string expected = ExpectedPlatform(input);
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
    for (std::string_view word : ascend ? GpuOnlyWords() : AscendOnlyWords()) {
      EXPECT_EQ(remedy.find(word), std::string_view::npos)
          << id << " on " << platform << " names '" << word << "': " << remedy;
    }
    ++(ascend ? counts->ascend_findings : counts->gpu_findings);
  }
}

}  // namespace trainscope::testing
