// Input-bound steps: the device idles while the host is
// inside the data loader's __next__. Hand-built host ops and device events:
// a starved step is flagged, its twin whose loader runs while the device
// still works is not, the threshold is a boundary, and host-bound does not
// claim the loader's idle a second time.
#include "analysis/step/input_bound.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "analysis/common/findings_catalog.h"
#include "analysis/findings/threshold_findings.h"
#include "analysis/step/step_budget.h"
#include "finding_lookup.h"
#include "model/rank_profile.h"
#include "time_units.h"

namespace trainscope::analysis {
namespace {

using testing::EvidenceValue;
using testing::FindingWithId;

using testing::kMs;
constexpr char kMulti[] = "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__";
constexpr char kSingle[] = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";

void Kernel(model::RankProfile* p, int32_t step, int64_t start, int64_t end) {
  model::DeviceEvent e;
  e.name = p->strings.Intern("gemm");
  e.op_type = e.name;
  e.step = step;
  e.start_ns = start;
  e.duration_ns = end - start;
  p->device_events.Append(e);
}

void HostOp(model::RankProfile* p, const char* name, int64_t start, int64_t end) {
  model::HostOp op;
  op.name = p->strings.Intern(name);
  op.start_ns = start;
  op.duration_ns = end - start;
  p->timeline.host_ops.Append(op);
}

void Step(model::RankProfile* p, int32_t number, int64_t start, int64_t end) {
  p->timeline.steps.push_back(model::Step{number, start, end, model::kNoIndex});
  HostOp(p, ("ProfilerStep#" + std::to_string(number)).c_str(), start, end);
}

// Two 100 ms ProfilerSteps. Step 0's kernels end at |step0_device_end|; step
// 1 asks the loader for its batch for |loader_ms| and then runs kernels
// until 195 ms.
model::RankProfile TwoSteps(int64_t step0_device_end, int64_t loader_ms,
                            const char* loader = kMulti) {
  model::RankProfile p;
  Step(&p, 0, 0, 100 * kMs);
  Step(&p, 1, 100 * kMs, 200 * kMs);
  Kernel(&p, 0, 5 * kMs, step0_device_end);
  HostOp(&p, loader, 100 * kMs, (100 + loader_ms) * kMs);
  const int64_t first = std::max(step0_device_end, (100 + loader_ms) * kMs);
  Kernel(&p, 1, first, 195 * kMs);
  return p;
}

StepDistribution StepOf(const model::RankProfile& p, int32_t step) {
  StepDistribution d;
  d.step = step;
  d.breakdown = ComputeStepBudget(p, step);
  d.data_loader = ComputeInputBound(p, step, FindDataLoaderCalls(p));
  return d;
}

std::vector<Finding> Findings(const model::RankProfile& p, const StepDistribution& d,
                              const FindingCatalog& catalog = FindingCatalog::Builtin()) {
  return ThresholdFindings(d, StepTimeline{}, p, catalog);
}

TEST(InputBound, TheDeviceStarvedBehindTheLoaderIsFlagged) {
  // Step 0's work ends at 95 ms; the loader holds the host 100-140 ms, so
  // the device has nothing to run from 100 to 140 ms: 40 of the 100 ms
  // iteration (the 5 ms gap before it, 95-100 ms, is not the loader's).
  const model::RankProfile p = TwoSteps(95 * kMs, 40);
  const StepDistribution d = StepOf(p, 1);
  ASSERT_TRUE(d.data_loader.has_value());
  EXPECT_EQ(d.data_loader->calls, 1);
  EXPECT_EQ(d.data_loader->single_process_calls, 0);
  EXPECT_EQ(d.data_loader->loader_ns, 40 * kMs);
  EXPECT_EQ(d.data_loader->idle_ns, 40 * kMs);
  EXPECT_EQ(d.data_loader->idle_in_window_ns, 0);  // before step 1's first kernel
  EXPECT_EQ(d.data_loader->step_ns, 100 * kMs);
  // Step 1's device window (140-195 ms) is all busy: no host-bound.
  const std::vector<Finding> findings = Findings(p, d);
  const Finding* f = FindingWithId(findings, "input-bound");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->occurrences, 1);
  EXPECT_EQ(f->variant, "");
  EXPECT_DOUBLE_EQ(EvidenceValue(*f, "idle_pct"), 40.0);
  EXPECT_DOUBLE_EQ(EvidenceValue(*f, "idle_ms"), 40.0);
  EXPECT_DOUBLE_EQ(EvidenceValue(*f, "loader_ms"), 40.0);
  EXPECT_DOUBLE_EQ(EvidenceValue(*f, "step_ms"), 100.0);
  EXPECT_DOUBLE_EQ(f->estimated_gain_pct, 40.0);
  EXPECT_EQ(FindingWithId(findings, "host-bound"), nullptr);
}

TEST(InputBound, ALoaderThatOverlapsBusyDeviceTimeIsNotFlagged) {
  // The clean twin: step 0's queue keeps the device busy until 141 ms, past
  // the loader's 40 ms: the host waited for data, the device did not.
  const model::RankProfile p = TwoSteps(141 * kMs, 40);
  const StepDistribution d = StepOf(p, 1);
  ASSERT_TRUE(d.data_loader.has_value());
  EXPECT_EQ(d.data_loader->calls, 1);
  EXPECT_EQ(d.data_loader->loader_ns, 40 * kMs);
  EXPECT_EQ(d.data_loader->idle_ns, 0);
  EXPECT_EQ(FindingWithId(Findings(p, d), "input-bound"), nullptr);
}

TEST(InputBound, TheThresholdIsABoundaryOfTheIteration) {
  // 3 ms of idle in a 100 ms iteration is the normal band (3%), not above.
  {
    const model::RankProfile p = TwoSteps(97 * kMs, 6);  // idle 100-106 ms: 6%
    const StepDistribution d = StepOf(p, 1);
    EXPECT_EQ(d.data_loader->idle_ns, 6 * kMs);
    EXPECT_NE(FindingWithId(Findings(p, d), "input-bound"), nullptr);
  }
  {
    const model::RankProfile p = TwoSteps(103 * kMs, 6);  // busy until 103: 3 ms idle
    const StepDistribution d = StepOf(p, 1);
    EXPECT_EQ(d.data_loader->idle_ns, 3 * kMs);
    EXPECT_EQ(d.data_loader->step_ns, 100 * kMs);
    EXPECT_EQ(FindingWithId(Findings(p, d), "input-bound"), nullptr);
  }
  {
    const model::RankProfile p = TwoSteps(103 * kMs - 1000, 6);  // 3 ms + 1 us
    const StepDistribution d = StepOf(p, 1);
    EXPECT_EQ(d.data_loader->idle_ns, 3 * kMs + 1000);
    const std::vector<Finding> findings = Findings(p, d);
    const Finding* f = FindingWithId(findings, "input-bound");
    ASSERT_NE(f, nullptr);
    EXPECT_NEAR(EvidenceValue(*f, "idle_pct"), 3.001, 1e-9);
    // The band is data/thresholds.tsv's, overridable: at 5% this step is
    // normal.
    FindingCatalog strict = FindingCatalog::Builtin();
    ASSERT_TRUE(strict.OverrideThresholds("input_idle_normal  0.05\n", "mine.tsv").ok());
    EXPECT_EQ(FindingWithId(Findings(p, d, strict), "input-bound"), nullptr);
  }
}

TEST(InputBound, HostBoundLeavesTheLoadersIdleToInputBound) {
  // The loader runs inside step 1's device window: a first kernel at 100 ms,
  // the loader 101-121 ms with the device idle, then the step's work.
  model::RankProfile p;
  Step(&p, 0, 0, 100 * kMs);
  Step(&p, 1, 100 * kMs, 200 * kMs);
  Kernel(&p, 0, 0, 99 * kMs);
  Kernel(&p, 1, 100 * kMs, 101 * kMs);
  HostOp(&p, kSingle, 101 * kMs, 121 * kMs);
  Kernel(&p, 1, 121 * kMs, 200 * kMs);
  StepDistribution d = StepOf(p, 1);
  ASSERT_TRUE(d.breakdown.has_value());
  EXPECT_EQ(d.breakdown->budget.idle_ns, 20 * kMs);  // the budget's free time is the loader's
  ASSERT_TRUE(d.data_loader.has_value());
  EXPECT_EQ(d.data_loader->idle_ns, 20 * kMs);
  EXPECT_EQ(d.data_loader->idle_in_window_ns, 20 * kMs);
  std::vector<Finding> findings = Findings(p, d);
  const Finding* input = FindingWithId(findings, "input-bound");
  ASSERT_NE(input, nullptr);
  EXPECT_EQ(input->variant, "single");  // num_workers=0
  EXPECT_DOUBLE_EQ(EvidenceValue(*input, "idle_in_window_ms"), 20.0);
  EXPECT_EQ(FindingWithId(findings, "host-bound"), nullptr);  // 20% free, all of it the loader's
  // Without the loader the same free time is host-bound's.
  d.data_loader.reset();
  findings = Findings(p, d);
  const Finding* host = FindingWithId(findings, "host-bound");
  ASSERT_NE(host, nullptr);
  EXPECT_DOUBLE_EQ(host->estimated_gain_pct, 17.0);  // 20% above the 3% band
}

TEST(InputBound, HostBoundKeepsTheFreeTimeTheLoaderDoesNotExplain) {
  // 20 ms idle behind the loader and 10 ms of idle elsewhere in the step:
  // host-bound decides and gains on the 10 ms and names the 20 ms.
  model::RankProfile p;
  Step(&p, 1, 0, 100 * kMs);
  Kernel(&p, 1, 0, 10 * kMs);
  HostOp(&p, kMulti, 10 * kMs, 30 * kMs);
  Kernel(&p, 1, 30 * kMs, 60 * kMs);
  Kernel(&p, 1, 70 * kMs, 100 * kMs);
  const StepDistribution d = StepOf(p, 1);
  const std::vector<Finding> findings = Findings(p, d);
  const Finding* host = FindingWithId(findings, "host-bound");
  ASSERT_NE(host, nullptr);
  EXPECT_DOUBLE_EQ(EvidenceValue(*host, "free_pct"),
                   30.0);  // the step's whole free time, as before
  EXPECT_DOUBLE_EQ(EvidenceValue(*host, "loader_idle_ms"), 20.0);
  EXPECT_DOUBLE_EQ(host->estimated_gain_pct, 7.0);  // 10% - 3%
  const Finding* input = FindingWithId(findings, "input-bound");
  ASSERT_NE(input, nullptr);
  EXPECT_DOUBLE_EQ(input->estimated_gain_pct, 20.0);
}

TEST(InputBound, BeforeTheCapturesFirstDeviceEventTheIdleIsUnknown) {
  // The first captured step: the loader runs before any device event was
  // recorded, so whether the device idled is not known and none is claimed.
  model::RankProfile p;
  Step(&p, 1, 0, 100 * kMs);
  HostOp(&p, kMulti, 0, 40 * kMs);
  Kernel(&p, 1, 40 * kMs, 100 * kMs);
  const StepDistribution d = StepOf(p, 1);
  ASSERT_TRUE(d.data_loader.has_value());
  EXPECT_EQ(d.data_loader->calls, 1);
  EXPECT_EQ(d.data_loader->loader_ns, 40 * kMs);
  EXPECT_EQ(d.data_loader->idle_ns, 0);
  EXPECT_EQ(FindingWithId(Findings(p, d), "input-bound"), nullptr);
}

TEST(InputBound, CopiesAndNestedRecordsAreOneCall) {
  // Kineto may write a cpu_op and a user_annotation copy of the same
  // __next__, and a DataPipe inside it.
  model::RankProfile p = TwoSteps(95 * kMs, 40);
  HostOp(&p, kMulti, 100 * kMs, 140 * kMs);
  HostOp(&p, "enumerate(DataPipe)#ShufflerIterDataPipe", 101 * kMs, 120 * kMs);
  const DataLoaderCalls calls = FindDataLoaderCalls(p);
  ASSERT_EQ(calls.calls.size(), 1u);
  const StepDistribution d = StepOf(p, 1);
  EXPECT_EQ(d.data_loader->calls, 1);
  EXPECT_EQ(d.data_loader->loader_ns, 40 * kMs);
  EXPECT_EQ(d.data_loader->idle_ns, 40 * kMs);
}

TEST(InputBound, NoTraceMeansUnknownAndNoLoaderMeansZero) {
  model::RankProfile p;
  Kernel(&p, 1, 0, kMs);
  EXPECT_FALSE(ComputeInputBound(p, 1, FindDataLoaderCalls(p)).has_value());
  HostOp(&p, "aten::mm", 0, kMs);
  const auto stats = ComputeInputBound(p, 1, FindDataLoaderCalls(p));
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->calls, 0);
  EXPECT_EQ(stats->idle_ns, 0);
}

TEST(InputBound, LoaderSpellings) {
  EXPECT_TRUE(IsDataLoaderCall(kMulti));
  EXPECT_TRUE(IsDataLoaderCall(kSingle));
  EXPECT_TRUE(
      IsDataLoaderCall("enumerate(DataLoader)#_StatefulMultiProcessingDataLoaderIter.__next__"));
  EXPECT_TRUE(IsDataLoaderCall("enumerate(DataPipe)#MultiplexerIterDataPipe"));
  EXPECT_FALSE(IsDataLoaderCall("enumerate(DataLoader)#_MultiProcessingDataLoaderIter._reset"));
  EXPECT_FALSE(IsDataLoaderCall("torch/utils/data/dataloader.py(628): __next__"));
  EXPECT_FALSE(IsDataLoaderCall("aten::copy_"));
}

}  // namespace
}  // namespace trainscope::analysis
