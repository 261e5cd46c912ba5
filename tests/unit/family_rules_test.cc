#include "analysis/common/family_rules.h"

#include <gtest/gtest.h>

namespace trainscope::analysis {
namespace {

using model::ActivityKind;

std::string FamilyOf(const FamilyRules& rules, std::string_view type, std::string_view name = "",
                     ActivityKind kind = ActivityKind::kCompute) {
  return rules.families()[rules.Classify(type, name, kind)];
}

TEST(FamilyRulesTest, GlobMatchIsCaseInsensitiveWithStars) {
  EXPECT_TRUE(GlobMatch("matmul*", "MatMulV3"));
  EXPECT_TRUE(GlobMatch("*attention*", "FlashAttentionScoreGrad"));
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("a*b*c", "aXXbYYc"));
  EXPECT_FALSE(GlobMatch("a*b*c", "aXXbYY"));
  EXPECT_FALSE(GlobMatch("cast", "Casts"));
  EXPECT_TRUE(GlobMatch("pad", "PAD"));
}

TEST(FamilyRulesTest, BuiltinTableClassifiesTheArticleFamilies) {
  const FamilyRules& rules = FamilyRules::Builtin();
  EXPECT_EQ(FamilyOf(rules, "MatMulV3"), "matmul/attention");
  EXPECT_EQ(FamilyOf(rules, "FlashAttentionScoreGrad"), "matmul/attention");
  EXPECT_EQ(FamilyOf(rules, "RmsNorm"), "norm");
  EXPECT_EQ(FamilyOf(rules, "Cast"), "glue/data movement");
  EXPECT_EQ(FamilyOf(rules, "StridedSlice"), "glue/data movement");
  EXPECT_EQ(FamilyOf(rules, "PadV3"), "glue/data movement");
  EXPECT_EQ(FamilyOf(rules, "Mul"), "elementwise");
  EXPECT_EQ(FamilyOf(rules, "Silu"), "elementwise");
  EXPECT_EQ(FamilyOf(rules, "Rsqrt"), "elementwise");
  EXPECT_EQ(FamilyOf(rules, "LogSoftmaxV2"), "loss");
  EXPECT_EQ(FamilyOf(rules, "NLLLossGrad"), "loss");
  EXPECT_EQ(FamilyOf(rules, "ApplyAdamW"), "optimizer");
  EXPECT_EQ(
      FamilyOf(rules, "hcom_allReduce_", "hcom_allReduce__586_0_1", ActivityKind::kCommunication),
      "communication");
  EXPECT_EQ(FamilyOf(rules, "ChunkGatedDeltaRule"), "custom/linear attention");
  EXPECT_EQ(FamilyOf(rules, "SomethingNobodyKnows"), "other");
  // GPU kernels are classified by name.
  EXPECT_EQ(
      FamilyOf(rules, "", "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
      "communication");
  EXPECT_EQ(FamilyOf(rules, "", "void at::native::vectorized_elementwise_kernel<4, ...>"),
            "elementwise");
  EXPECT_EQ(FamilyOf(rules, "", "sm90_xmma_gemm_bf16bf16_bf16f32"), "matmul/attention");
  EXPECT_EQ(FamilyOf(rules, "", "dpsk::ep::internode::dispatch<...>"), "communication");
}

TEST(FamilyRulesTest, BuiltinTableHasTheNineFamiliesOfTheMethod) {
  const auto& names = FamilyRules::Builtin().families();
  for (const char* family : {"matmul/attention", "custom/linear attention", "norm", "elementwise",
                             "glue/data movement", "loss", "optimizer", "communication", "other"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), family), names.end()) << family;
  }
}

TEST(FamilyRulesTest, UserRulesComeFirstAndCanAddFamilies) {
  auto user =
      FamilyRules::Parse("# mine\nmy kernels\ttype\tMyFused*\nnorm  type  Cast\n", "user.tsv");
  ASSERT_TRUE(user.ok()) << user.status().message();
  FamilyRules merged = FamilyRules::Merge(*user, FamilyRules::Builtin());
  EXPECT_EQ(FamilyOf(merged, "MyFusedThing"), "my kernels");
  EXPECT_EQ(FamilyOf(merged, "Cast"), "norm");
  EXPECT_EQ(FamilyOf(merged, "MatMulV2"), "matmul/attention");
}

TEST(FamilyRulesTest, BadRuleFileNamesFileLineAndHint) {
  auto bad = FamilyRules::Parse("norm\ttype\tRmsNorm\nnorm\twhatever\tX\n", "rules.tsv");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("rules.tsv:2"), std::string::npos);
  EXPECT_NE(bad.status().message().find("hint"), std::string::npos);
  auto columns = FamilyRules::Parse("only-two\ttype\n", "rules.tsv");
  ASSERT_FALSE(columns.ok());
  EXPECT_NE(columns.status().message().find("rules.tsv:1"), std::string::npos);
}

}  // namespace
}  // namespace trainscope::analysis
