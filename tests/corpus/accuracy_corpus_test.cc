// trainscope accuracy on a real msprobe dump (Ascend/msprobe's quick-start
// GPU ResNet example, task statistics, two steps in msprobe's own layout
// dump_path/step{N}/proc{PID}/). The expected verdict was worked out by hand
// from the two dump.json files (python3, plain json, the documented rules):
// the calls line up one to one once the parameters_grad counters (0 in
// step0, 1 in step1) are dropped, 760 calls with tensors on each side, 2,071
// tensors; the first pair whose Norm/Max/Min moves by more than float32's
// stat_rel (1e-3) is conv1's weight, the second input of the first
// Functional.conv2d: Min -0.1016 -> -0.7231 (6.12 relative), one optimizer
// step later. The batch itself (input.0) moves by 1.4e-4 only.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "analysis/accuracy/accuracy.h"
#include "formats/accuracy/dump_reader.h"
#include "test_paths.h"

namespace trainscope {
namespace {

constexpr const char* kDump = "dumps/m_msprobe_quickstart_gpu_resnet_dump";

TEST(AccuracyCorpus, MsprobeStepFoldersAreFoundAndStep1DivergesAtConv1Weight) {
  TS_REQUIRE_CORPUS(kDump);
  const std::string root = corpus_path + "/" + kDump;
  auto base = formats::ReadTensorDump(root + "/step0", {});
  auto next = formats::ReadTensorDump(root + "/step1", {});
  ASSERT_TRUE(base.ok()) << base.status().message();
  ASSERT_TRUE(next.ok()) << next.status().message();
  EXPECT_EQ(base->selected, "proc2016");
  EXPECT_EQ(base->tensors.size(), 2071u);
  EXPECT_EQ(next->tensors.size(), 2071u);
  const auto c = analysis::CompareDumps(*base, *next, analysis::AccuracyThresholds::Builtin(), {});
  EXPECT_EQ(c.matched_ops, 760);
  EXPECT_EQ(c.base_only_ops + c.next_only_ops, 0);
  EXPECT_EQ(c.coverage.judged_tensors, 2071);
  EXPECT_EQ(c.verdict, analysis::Verdict::kDivergence);
  ASSERT_TRUE(c.first_divergence);
  const auto& p = c.pairs[*c.first_divergence];
  EXPECT_EQ(p.op(), "Functional.conv2d.0.forward");
  EXPECT_EQ(p.name(), "Functional.conv2d.0.forward.input.1");
  EXPECT_EQ(p.module(), "conv1");
  EXPECT_EQ(p.detail.substr(0, 3), "Min");
  EXPECT_EQ(c.diverged, 1981);
}

TEST(AccuracyCorpus, MsprobeDumpPathAgainstItselfIsNoDivergenceWithFullCoverage) {
  TS_REQUIRE_CORPUS(kDump);
  const std::string root = corpus_path + "/" + kDump;
  auto base = formats::ReadTensorDump(root, {});
  ASSERT_TRUE(base.ok()) << base.status().message();
  EXPECT_EQ(base->selected, "step0/proc2016");
  formats::DumpReadOptions step1;
  step1.step = 1;
  auto next = formats::ReadTensorDump(root, step1);
  ASSERT_TRUE(next.ok()) << next.status().message();
  EXPECT_EQ(next->selected, "step1/proc2016");
  const auto same =
      analysis::CompareDumps(*base, *base, analysis::AccuracyThresholds::Builtin(), {});
  EXPECT_EQ(same.verdict, analysis::Verdict::kNoDivergence);
  EXPECT_TRUE(same.coverage.enough());
  const auto steps =
      analysis::CompareDumps(*base, *next, analysis::AccuracyThresholds::Builtin(), {});
  ASSERT_TRUE(steps.first_divergence);
  EXPECT_EQ(steps.pairs[*steps.first_divergence].name(), "Functional.conv2d.0.forward.input.1");
}

}  // namespace
}  // namespace trainscope
