// The iteration window (model/iteration.h) against HTA's temporal
// breakdown of the same public traces: HTA's kernel_time runs from the
// first to the last kernel of the trace's iterations; trainscope's
// iterations of those steps add up to the same time within 2%, and the
// busy/idle split of each iteration adds up to its span (docs/timelines.md,
// "The iteration"). HTA's numbers are its own output, in
// ../shared/corpus/kineto/_reference_runs/hta/hta_outputs_8_traces.txt.
#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "analysis/step/step_budget.h"
#include "formats/trace/kineto_reader.h"
#include "model/iteration.h"
#include "model/rank_profile.h"
#include "test_paths.h"

namespace trainscope {
namespace {

struct HtaIterations {
  const char* trace;      // under the corpus
  double kernel_time_us;  // HTA's temporal breakdown, kernel_time(us)
};

// The iterations' spans over the steps HTA keeps (it drops the trace's last
// ProfilerStep when there are several, docs/timelines.md "Where trainscope
// deliberately differs"),
// and a check that each budget's parts add up.
double IterationSumUs(const model::RankProfile& profile) {
  int64_t sum = 0;
  const std::vector<model::Step>& steps = profile.timeline.steps;
  const size_t kept = steps.size() > 1 ? steps.size() - 1 : steps.size();
  for (size_t k = 0; k < kept; ++k) {
    const model::Step& step = steps[k];
    const std::optional<model::Iteration> it = model::IterationOf(profile, step.number);
    if (!it) continue;
    sum += it->span_ns();
    const std::optional<analysis::StepBudget> budget =
        analysis::ComputeStepBudget(profile, step.number);
    if (!budget) continue;
    EXPECT_EQ(budget->span, analysis::kSpanIteration);
    EXPECT_EQ(budget->budget.total_ns, it->span_ns());
    EXPECT_EQ(budget->budget.busy_ns + budget->budget.idle_ns, budget->budget.total_ns);
    EXPECT_GE(budget->budget.idle_ns, 0);
  }
  return static_cast<double>(sum) / 1e3;
}

class IterationCorpus : public ::testing::TestWithParam<HtaIterations> {};

TEST_P(IterationCorpus, IterationsAddUpToHtaKernelTime) {
  const HtaIterations& ref = GetParam();
  TS_REQUIRE_CORPUS(std::string("kineto/") + ref.trace);
  model::RankProfile profile;
  ASSERT_TRUE(formats::ReadKinetoTrace(corpus_path + "/kineto/" + ref.trace, &profile).ok());
  ASSERT_TRUE(model::HasIterations(profile));
  const double ours = IterationSumUs(profile);
  std::printf("%s: iterations %.0f us, HTA kernel_time %.0f us (%+.2f%%)\n", ref.trace, ours,
              ref.kernel_time_us, (ours - ref.kernel_time_us) / ref.kernel_time_us * 100);
  EXPECT_NEAR(ours, ref.kernel_time_us, 0.02 * ref.kernel_time_us);
}

INSTANTIATE_TEST_SUITE_P(
    Hta, IterationCorpus,
    ::testing::Values(
        HtaIterations{"dlrm_ddp_8rank_v100_param/worker0_step_12.1694128201545.pt.trace.json.gz",
                      13009.0},
        HtaIterations{"hta_sampled_2rank_of128job/sampled_rank-0.json.gz", 600058.0},
        HtaIterations{"hta_ddp_2rank_a100_rank0_nccl_metadata/nccl_data.json.gz", 435586.0},
        HtaIterations{
            "hta_ddp_v100_rank0_ns_resolution/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
            384634.0},
        HtaIterations{"hta_v100_2rank_job_rank1_memory/df_index_resolver.json.gz", 1396669.0}));

}  // namespace
}  // namespace trainscope
