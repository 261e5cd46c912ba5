// Fingerprints on the real public profiles: the per-tensor gradient clipping
// of the Qwen3 Ascend job (MindSpeed's Python fallback for apex's
// multi_tensor_l2norm / multi_tensor_scale) is counted exactly as a reading
// of its kernel_details.csv does; profiles that clip or permute with fused
// kernels are not flagged.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/common/family_rules.h"
#include "analysis/job/rank_analysis.h"
#include "finding_lookup.h"
#include "formats/load_profiles.h"
#include "test_paths.h"

namespace trainscope::analysis {
namespace {

using testing::EvidenceValue;
using testing::FindingWithId;

Result<JobAnalysis> AnalyzeCorpus(const std::string& path) {
  auto loaded = formats::LoadProfiles({path}, 2);
  if (!loaded.ok()) return loaded.status();
  return AnalyzeJob(loaded->profiles, FamilyRules::Builtin(), AnalysisOptions{}, 2);
}

// Step 13 of ranks 0 and 2: 57 parameter tensors, each `LpNormV2 Pows Add`
// (torch.norm(g) ** 2 accumulated), then `Muls TensorMove` for the 29
// tensors whose scaled copy is written back (the other 28 Muls run alone).
TEST(FingerprintCorpus, QwenClipsGradientsTensorByTensor) {
  TS_REQUIRE_CORPUS("ascend/msinsight-st-qwen3-0.6b-4rank-level2-cann8.3.RC1");
  auto job =
      AnalyzeCorpus(corpus_path + "/ascend/msinsight-st-qwen3-0.6b-4rank-level2-cann8.3.RC1");
  ASSERT_TRUE(job.ok()) << job.status().message();
  const Finding* clip = FindingWithId(*job, "per-tensor-grad-clip");
  ASSERT_NE(clip, nullptr);
  EXPECT_EQ(clip->ranks, (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(EvidenceValue(*clip, "instances_norm"), 57);
  EXPECT_EQ(EvidenceValue(*clip, "instances_scale"), 29);
  EXPECT_NE(clip->remedy.find("ForeachNorm"), std::string::npos) << clip->remedy;
  EXPECT_EQ(FindingWithId(*job, "moe-token-permute"), nullptr);
}

// DeepSeek-V3 (EP64, H800) permutes tokens with fused kernels
// (get_fused_mapping, expand_to_fused_with_scales_impl, reduce_fused_impl);
// the ResNet ranks clip nothing and run torch_npu's foreach optimizer.
TEST(FingerprintCorpus, FusedPermuteAndForeachJobsAreClean) {
  TS_REQUIRE_CORPUS("kineto/deepseek_v3_train_ep64_h800_rank0");
  for (const char* input :
       {"kineto/deepseek_v3_train_ep64_h800_rank0", "ascend/msinsight-pytorch-2rank-text-level1"}) {
    SCOPED_TRACE(input);
    const std::string path = corpus_path + "/" + input;
    if (!std::filesystem::exists(path)) continue;
    auto job = AnalyzeCorpus(path);
    ASSERT_TRUE(job.ok()) << job.status().message();
    EXPECT_EQ(FindingWithId(*job, "moe-token-permute"), nullptr);
    EXPECT_EQ(FindingWithId(*job, "per-tensor-grad-clip"), nullptr);
    EXPECT_EQ(FindingWithId(*job, "moe-expert-loop"), nullptr);
  }
}

}  // namespace
}  // namespace trainscope::analysis
