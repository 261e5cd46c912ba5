// `compare` end to end on the corpus pairs, beside
// the anchors' own diffs: HTA's trace_diff test pair and TraceLens' H100 vs
// MI300X comparison (docs/compare.md explains where the numbers differ).
// Skipped when the shared corpus is absent.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "analysis/common/family_rules.h"
#include "analysis/compare/run_comparison.h"
#include "analysis/job/rank_analysis.h"
#include "formats/load_profiles.h"
#include "test_paths.h"

namespace trainscope::analysis {
namespace {

JobAnalysis AnalyzeJob(const std::string& dir) {
  auto profiles = formats::LoadProfiles({dir}, 2);
  EXPECT_TRUE(profiles.ok()) << profiles.status().message();
  if (!profiles.ok()) return {};
  auto rules = FamilyRules::Merge({}, FamilyRules::Builtin());
  AnalysisOptions options;
  options.distribution.top_operators = 100000;
  auto job = AnalyzeJob(profiles->profiles, rules, options, 2);
  EXPECT_TRUE(job.ok());
  return job.ok() ? std::move(*job) : JobAnalysis{};
}

RunComparison Compare(const std::string& base, const std::string& next) {
  const JobAnalysis b = AnalyzeJob(base);
  const JobAnalysis n = AnalyzeJob(next);
  auto c = CompareRuns(b, n, CompareOptions{});
  EXPECT_TRUE(c.ok());
  return c.ok() ? std::move(*c) : RunComparison{};
}

const ComparedValue* Find(const RunComparison& c, const std::string& id) {
  for (const ComparedValue& v : c.values) {
    if (v.id == id) return &v;
  }
  return nullptr;
}

TEST(CompareCorpus, HtaTraceComparePairDeletesOneGpuKernel) {
  TS_REQUIRE_CORPUS("kineto/hta_trace_diff_pairs/trace_compare");
  const std::string dir = corpus_path + "/kineto/hta_trace_diff_pairs/trace_compare";
  const RunComparison c = Compare(dir + "/base", dir + "/test");
  // HTA's test_trace_diff.py: on rank 1, iteration 1010, one GPU op is
  // deleted ("-": 1) and none added. Here: the same step, one kernel type
  // gone, none new (copies and memsets are matched by name on both sides).
  EXPECT_EQ(c.base.step, 1010);
  EXPECT_EQ(c.next.step, 1010);
  int gone = 0, added = 0;
  for (const ComparedGroup& op : c.operators) {
    gone += op.next_count == 0 ? 1 : 0;
    added += op.base_count == 0 ? 1 : 0;
  }
  EXPECT_EQ(gone, 1);
  EXPECT_EQ(added, 0);
  ASSERT_NE(Find(c, "kernels"), nullptr);
  EXPECT_EQ(Find(c, "kernels")->delta(), -1);
}

TEST(CompareCorpus, QwenH100VersusMi300xMatchesTraceLensDirection) {
  TS_REQUIRE_CORPUS("kineto/tracelens_qwen1.5_0.5b_h100_vs_mi300x");
  const std::string dir = corpus_path + "/kineto/tracelens_qwen1.5_0.5b_h100_vs_mi300x";
  const RunComparison c = Compare(dir + "/h100", dir + "/mi300");
  EXPECT_EQ(c.base.platform, model::Platform::kCuda);
  EXPECT_EQ(c.next.platform, model::Platform::kRocm);
  // TraceLens' compare (reference gpu_timeline.csv): total -5.05%,
  // computation -2.160 ms over its scope (launched activities, the whole
  // trace). Over the ProfilerStep#6 window with every activity: -5.1% and
  // -2.34 ms. Same direction and relative size; docs/compare.md.
  ASSERT_TRUE(c.step_change_pct);
  EXPECT_NEAR(*c.step_change_pct, -5.05, 0.3);
  const ComparedValue* computation = Find(c, "computation_ms");
  ASSERT_NE(computation, nullptr);
  ASSERT_TRUE(computation->delta());
  EXPECT_NEAR(*computation->delta(), -2.34, 0.05);
  // cuBLAS' sm90 GEMMs are gone, hipBLASLt's Cijk kernels appear.
  bool sm90_gone = false, cijk_new = false;
  for (const ComparedGroup& op : c.operators) {
    sm90_gone |= op.name.rfind("sm90_", 0) == 0 && op.next_count == 0;
    cijk_new |= op.name.rfind("Cijk_", 0) == 0 && op.base_count == 0;
  }
  EXPECT_TRUE(sm90_gone);
  EXPECT_TRUE(cijk_new);
}

TEST(CompareCorpus, HtaTraceDiffA100VersusV100) {
  TS_REQUIRE_CORPUS("kineto/hta_trace_diff_pairs/trace_diff");
  const std::string dir = corpus_path + "/kineto/hta_trace_diff_pairs/trace_diff";
  const RunComparison c = Compare(dir + "/control", dir + "/test");
  // An A100 rank against a V100 rank of the same model: the V100 is slower
  // and runs Volta GEMMs the A100 run does not.
  ASSERT_TRUE(c.step_change_pct);
  EXPECT_GT(*c.step_change_pct, 50);
  EXPECT_NE(c.verdict.find("slower"), std::string::npos);
  bool volta_new = false;
  for (const ComparedGroup& op : c.operators) {
    volta_new |= op.name.rfind("volta_", 0) == 0 && op.base_count == 0;
  }
  EXPECT_TRUE(volta_new);
}

}  // namespace
}  // namespace trainscope::analysis
