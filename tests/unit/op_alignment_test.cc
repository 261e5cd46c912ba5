// `compare` paired by framework op and module class
// (analysis/compare/op_alignment.h): two synth twins of one model whose only
// difference is the RMSNorm, eager (Cast, Pow, Mean, ... per call) in BASE
// and one fused RmsNorm kernel in NEW. The module class pairs them where the
// kernel names cannot, and the report names the fused kernel BASE lacks with
// the fingerprint library's Ascend remedy.
#include "analysis/compare/op_alignment.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "analysis/common/family_rules.h"
#include "analysis/compare/run_comparison.h"
#include "analysis/job/rank_analysis.h"
#include "analysis/motifs/fingerprint_library.h"
#include "report/compare_report.h"
#include "synth/kernel_catalog.h"
#include "synth_job.h"

namespace trainscope::analysis {
namespace {

synth::SynthOptions RmsNormTwinOptions(bool fused_rmsnorm) {
  synth::SynthOptions o;
  o.ranks = 1;
  o.layers = 2;
  o.steps = 1;
  o.trace_view = true;
  o.with_stack = true;
  o.fused_rmsnorm = fused_rmsnorm;
  return o;
}

JobAnalysis AnalyseTwin(const synth::SynthOptions& options, const std::string& tag) {
  std::string dir;
  auto profiles = testing::LoadSynthJob(options, tag, 2, &dir);
  EXPECT_TRUE(profiles.ok()) << profiles.status().message();
  if (!profiles.ok()) return {};
  auto rules = FamilyRules::Merge({}, FamilyRules::Builtin());
  auto job = AnalyzeJob(profiles->profiles, rules, AnalysisOptions{}, 2);
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(job.ok());
  return job.ok() ? std::move(*job) : JobAnalysis{};
}

const AlignedOp* FindAligned(const std::vector<AlignedOp>& rows, const std::string& name) {
  for (const AlignedOp& op : rows) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

TEST(OpAlignmentTest, SynthTwinsNameTheFusedRmsNormBaseLacks) {
  const JobAnalysis base = AnalyseTwin(RmsNormTwinOptions(false), "align_unfused");
  const JobAnalysis next = AnalyseTwin(RmsNormTwinOptions(true), "align_fused");
  auto c = CompareRuns(base, next, CompareOptions{});
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_TRUE(c->op_alignment) << c->op_alignment_missing;
  const OpAlignment& a = *c->op_alignment;

  // The planted chains: BASE's eager RMSNorm, NEW's one fused kernel.
  const synth::KernelCatalog catalog(RmsNormTwinOptions(false));
  const synth::Chain& eager = catalog.chains().rmsnorm_fwd[0];
  const synth::Chain& fused = catalog.chains().rmsnorm_fwd[1];
  ASSERT_EQ(fused.size(), 1u);
  ASSERT_GE(eager.size(), 2u);

  const AlignedOp* norm = FindAligned(a.modules, "Qwen3NextRMSNorm");
  ASSERT_NE(norm, nullptr);
  EXPECT_EQ(norm->base_calls, norm->next_calls);
  ASSERT_TRUE(norm->base_kernels_per_call());
  ASSERT_TRUE(norm->next_kernels_per_call());
  EXPECT_DOUBLE_EQ(*norm->base_kernels_per_call(), static_cast<double>(eager.size()));
  EXPECT_DOUBLE_EQ(*norm->next_kernels_per_call(), 1.0);
  EXPECT_EQ(norm->fused_side, "new");
  EXPECT_EQ(norm->fused_kernel, catalog.spec(fused.front()).name);
  EXPECT_EQ(norm->fingerprint, "unfused-rmsnorm");
  const Fingerprint* fingerprint = FingerprintLibrary::Builtin().Find("unfused-rmsnorm");
  ASSERT_NE(fingerprint, nullptr);
  EXPECT_FALSE(norm->remedy.empty());
  EXPECT_EQ(norm->remedy,
            fingerprint->remedy_ascend.empty() ? fingerprint->remedy : fingerprint->remedy_ascend);

  // At the op level the fused op is NEW's alone, and modules untouched by
  // the remedy launch the same kernels on both sides.
  const AlignedOp* npu_norm = FindAligned(a.ops, "npu::npu_rms_norm");
  ASSERT_NE(npu_norm, nullptr);
  EXPECT_FALSE(npu_norm->in_base());
  EXPECT_TRUE(npu_norm->in_next());
  EXPECT_GE(a.next_only, 1);
  const AlignedOp* mlp = FindAligned(a.modules, "Qwen3NextMLP");
  ASSERT_NE(mlp, nullptr);
  EXPECT_EQ(mlp->base_kernels, mlp->next_kernels);
  EXPECT_TRUE(mlp->fused_side.empty());

  // The three reports carry it.
  const std::string text = report::RenderCompareText(*c, {});
  EXPECT_NE(text.find("module Qwen3NextRMSNorm: one kernel per call on NEW (" +
                      catalog.spec(fused.front()).name + ")"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("unfused-rmsnorm; remedy: " + norm->remedy), std::string::npos);
  const std::string json = report::RenderCompareJson(*c, "test");
  EXPECT_NE(json.find("\"op_alignment\""), std::string::npos);
  EXPECT_NE(json.find("\"fingerprint\": \"unfused-rmsnorm\""), std::string::npos);
  const std::string html = report::RenderCompareHtml(*c, "test");
  EXPECT_NE(html.find("id=\"framework-ops\""), std::string::npos);
  EXPECT_NE(html.find("Qwen3NextRMSNorm"), std::string::npos);
}

TEST(OpAlignmentTest, UnknownWithoutLaunchLinks) {
  // No trace_view.json: kernel_details.csv has no host ops to pair by.
  synth::SynthOptions o = RmsNormTwinOptions(false);
  o.trace_view = false;
  o.with_stack = false;
  const JobAnalysis base = AnalyseTwin(o, "align_nolinks_a");
  const JobAnalysis next = AnalyseTwin(o, "align_nolinks_b");
  auto c = CompareRuns(base, next, CompareOptions{});
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->op_alignment);
  EXPECT_NE(c->op_alignment_missing.find("neither side"), std::string::npos);
  EXPECT_NE(report::RenderCompareJson(*c, "test").find("\"op_alignment\": null"),
            std::string::npos);
}

}  // namespace
}  // namespace trainscope::analysis
