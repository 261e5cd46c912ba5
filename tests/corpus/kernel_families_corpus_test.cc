// Families cover the kernels of real traces: on every Kineto trace of the
// corpus, kernels the rule table cannot name ("other") are under 10% of the
// kernel time, as the product computes it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/common/family_rules.h"
#include "analysis/step/kernel_distribution.h"
#include "formats/trace/kineto_reader.h"
#include "model/rank_profile.h"
#include "test_paths.h"

namespace trainscope {
namespace {

double FamilyShare(const model::RankProfile& profile, const std::string& name) {
  const analysis::KernelFamilies families(profile, analysis::FamilyRules::Builtin());
  const analysis::StepDistribution all =
      analysis::ComputeStepDistribution(profile, model::kNoStep, families);
  for (const analysis::FamilyStat& family : all.families) {
    if (family.name == name) return family.share_time;
  }
  return 0;
}

// The share of device time (the families' denominator: kernels, copies and
// sets) of events whose name contains `part`.
double NamedShare(const model::RankProfile& profile, std::string_view part) {
  int64_t total = 0, named = 0;
  const model::DeviceEvents& k = profile.device_events;
  for (size_t i = 0; i < k.size(); ++i) {
    total += k.duration_ns[i];
    if (profile.strings.Get(k.name[i]).find(part) != std::string_view::npos) {
      named += k.duration_ns[i];
    }
  }
  return total > 0 ? static_cast<double>(named) / static_cast<double>(total) : 0;
}

TEST(KernelFamiliesCorpus, OtherIsUnderTenPercentOfKernelTimeOnEveryKinetoTrace) {
  TS_REQUIRE_CORPUS("kineto");
  const std::vector<std::string> traces = testing::CorpusKinetoTraces(corpus_path + "/kineto");
  ASSERT_GE(traces.size(), 20u) << "the corpus lost its Kineto traces";
  size_t checked = 0;
  for (const std::string& path : traces) {
    model::RankProfile profile;
    ASSERT_TRUE(formats::ReadKinetoTrace(path, &profile).ok()) << path;
    if (profile.device_events.size() == 0) continue;  // a trace without device kernels
    // torch.cuda._sleep's spin kernel (HTA's cuda_event_sync trace) is a
    // deliberate wait: it has the family "wait", not "other".
    EXPECT_NEAR(FamilyShare(profile, "wait"), NamedShare(profile, "spin_kernel"), 1e-9) << path;
    EXPECT_LT(FamilyShare(profile, "other"), 0.10) << path;
    ++checked;
  }
  EXPECT_GE(checked, 20u);
}

}  // namespace
}  // namespace trainscope
