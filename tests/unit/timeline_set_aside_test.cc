// A device timeline that cannot be trusted (HCCL sub-tasks mistaken for
// kernels, no source agreeing with step_trace_time.csv, times no hardware
// can produce): the numbers shown come from the sources still sound, and
// nothing measured on the broken timeline is shown as a number.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "analysis/common/family_rules.h"
#include "analysis/job/rank_analysis.h"
#include "formats/load_profiles.h"
#include "report/json_report.h"
#include "report/text_report.h"
#include "test_paths.h"

namespace trainscope::analysis {
namespace {

std::string SetAsideCaseInput(const std::string& name) {
  return testing::SourceDir() + "/tests/golden/cases/ascend_text/" + name + "/input";
}

Result<JobAnalysis> AnalyzeSetAsideCase(const std::string& name) {
  auto loaded = formats::LoadProfiles({SetAsideCaseInput(name)}, 1);
  if (!loaded.ok()) return loaded.status();
  const FamilyRules rules = FamilyRules::Merge({}, FamilyRules::Builtin());
  return AnalyzeJob(loaded->profiles, rules, AnalysisOptions(), 1);
}

const Finding* SetAsideFindingOf(const JobAnalysis& job, const std::string& id) {
  for (const Finding& f : job.findings) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

// 2024 exports type HCCL's own device tasks "Other": on a stream that runs
// only such tasks, each inside an hcom_* op's window, they are the
// collective's sub-tasks, not kernels.
TEST(TimelineSetAside, HcclStreamTasksOfA2024TraceAreNotComputation) {
  auto loaded = formats::LoadProfiles({SetAsideCaseInput("trace_view_2024_hccl_stream_tasks")}, 1);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const model::RankProfile& profile = loaded->profiles.at(0);
  int64_t hccl_stream_tasks = 0;
  for (const RowLedger& ledger : profile.ledgers) {
    for (const auto& [reason, count] : ledger.skipped_by_reason()) {
      if (reason == "HCCL task on a communication stream") hccl_stream_tasks += count;
    }
  }
  // Reduce Inline x2, Reduce TBE, the hcom_* task; Notify Wait is the
  // runtime's (a device task that is not a kernel).
  EXPECT_EQ(hccl_stream_tasks, 4);

  auto job = AnalyzeSetAsideCase("trace_view_2024_hccl_stream_tasks");
  ASSERT_TRUE(job.ok()) << job.status().message();
  const StepDistribution* step = job->ranks.at(0).selected();
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->kernels.count, 6);
  EXPECT_EQ(step->kernels.compute_count, 4);
  EXPECT_EQ(step->kernels.communication_count, 2);
  EXPECT_TRUE(step->timeline_set_aside.empty()) << step->timeline_set_aside;
  ASSERT_TRUE(step->breakdown.has_value());
  EXPECT_EQ(step->breakdown->source, "trace");
  // step_trace_time.csv: Computing 1390, Not Overlapped 810, Free 40 (µs).
  EXPECT_EQ(step->breakdown->budget.computation_ns, 1'390'000);
  EXPECT_EQ(step->breakdown->budget.exposed_communication_ns, 810'000);
  EXPECT_EQ(step->breakdown->budget.idle_ns, 40'000);
}

// kernel_details.csv 9.6% off step_trace_time.csv and no trace beside it:
// the budget is the profiler's, the timeline is set aside, and the findings
// that need it have no gain while exposed communication keeps its own.
TEST(TimelineSetAside, NoSourceAgreeingGivesTheProfilersBudget) {
  auto job = AnalyzeSetAsideCase("step_trace_disagrees");
  ASSERT_TRUE(job.ok()) << job.status().message();
  const StepDistribution* step = job->ranks.at(0).selected();
  ASSERT_NE(step, nullptr);
  ASSERT_TRUE(step->breakdown.has_value());
  EXPECT_EQ(step->breakdown->source, "step_trace_time.csv");
  EXPECT_EQ(step->breakdown->replaced, "kernel_details.csv");
  EXPECT_NE(step->timeline_set_aside.find("disagrees with step_trace_time.csv by 9.6%"),
            std::string::npos)
      << step->timeline_set_aside;
  // Computing 2158.5 + Not Overlapped 800 + Free 160 µs (step 6).
  EXPECT_EQ(step->breakdown->budget.total_ns, 3'118'500);
  EXPECT_EQ(step->breakdown->budget.computation_ns, 2'158'500);
  EXPECT_FALSE(step->launch_gaps.has_value());
  const Finding* dominant = SetAsideFindingOf(*job, "dominant-operator");
  ASSERT_NE(dominant, nullptr);
  EXPECT_TRUE(dominant->gain_withheld);
  EXPECT_TRUE(std::isnan(ExportedGainPct(*dominant)));
  EXPECT_NE(dominant->gain_model.find("gain not computed"), std::string::npos);
  const Finding* exposed = SetAsideFindingOf(*job, "exposed-communication");
  ASSERT_NE(exposed, nullptr);
  EXPECT_FALSE(exposed->gain_withheld);
  // 800 of 3118.5 µs exposed, above the 10% normal band: 15.65%.
  EXPECT_NEAR(exposed->estimated_gain_pct, 800.0 / 3118.5 * 100 - 10, 0.01);
}

// Spreadsheet-rounded start times: the step's numbers are
// step_trace_time.csv's (1858.5 + 800 + 160 µs), span and issue rate are
// n/a, and no finding measured on the timeline shows a gain.
TEST(TimelineSetAside, ImplausibleTimelineShowsOnlySoundNumbers) {
  auto job = AnalyzeSetAsideCase("spreadsheet_rounded_starts");
  ASSERT_TRUE(job.ok()) << job.status().message();
  const StepDistribution* step = job->ranks.at(0).selected();
  ASSERT_NE(step, nullptr);
  EXPECT_NE(step->timeline_set_aside.find("is implausible"), std::string::npos);
  ASSERT_TRUE(step->breakdown.has_value());
  EXPECT_EQ(step->breakdown->source, "step_trace_time.csv");
  EXPECT_EQ(step->breakdown->replaced, "kernel_details.csv");
  EXPECT_EQ(step->breakdown->budget.total_ns, 2'818'500);
  EXPECT_EQ(step->breakdown->budget.computation_ns, 1'858'500);
  EXPECT_EQ(step->breakdown->budget.exposed_communication_ns, 800'000);
  for (const Finding& f : job->findings) {
    if (f.id == "exposed-communication") {
      EXPECT_FALSE(f.gain_withheld);
    } else if (f.id == "dominant-operator") {
      EXPECT_TRUE(f.gain_withheld) << f.gain_model;
    }
  }
  ASSERT_TRUE(job->projection.step_ns.has_value());
  EXPECT_EQ(*job->projection.step_ns, 2'818'500);

  const std::string text = report::RenderText(*job, report::TextReportOptions());
  EXPECT_NE(text.find("device busy span of n/a (timeline set aside); one issued every n/a"),
            std::string::npos);
  EXPECT_EQ(text.find("issued every 0 ns"), std::string::npos);
  const std::string json = report::RenderJson(*job, "test");
  EXPECT_NE(json.find("\"mean_issue_interval_us\": null"), std::string::npos);
  EXPECT_NE(json.find("\"timeline_set_aside\": \"the device timeline of kernel_details.csv"),
            std::string::npos);
}

// One kernel has no issue rate: n/a, never "every 0 ns".
TEST(TimelineSetAside, OneKernelHasNoIssueRate) {
  model::RankProfile p;
  p.rank = 0;
  model::DeviceEvent e;
  e.step = model::kNoStep;
  e.name = p.strings.Intern("MatMulV3");
  e.op_type = e.name;
  e.kind = model::ActivityKind::kCompute;
  e.start_ns = 1'000'000;
  e.duration_ns = 500'000;
  p.device_events.Append(e);
  p.device_events_from = "kernel_details.csv";
  const FamilyRules rules = FamilyRules::Merge({}, FamilyRules::Builtin());
  std::vector<model::RankProfile> profiles;
  profiles.push_back(std::move(p));
  auto job = AnalyzeJob(profiles, rules, AnalysisOptions(), 1);
  ASSERT_TRUE(job.ok()) << job.status().message();
  const std::string text = report::RenderText(*job, report::TextReportOptions());
  EXPECT_NE(text.find("one issued every n/a"), std::string::npos) << text;
  EXPECT_EQ(text.find("issued every 0 ns"), std::string::npos);
}

}  // namespace
}  // namespace trainscope::analysis
