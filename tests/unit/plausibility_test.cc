// A device timeline that no hardware can produce is said, not analysed as
// if fine.
#include "analysis/step/plausibility.h"

#include <gtest/gtest.h>

#include <string>

#include "formats/load_profiles.h"
#include "test_paths.h"

namespace trainscope::analysis {
namespace {

void AddStreamKernel(model::RankProfile* p, int32_t stream, int64_t start_us, int64_t dur_us) {
  model::DeviceEvent e;
  e.step = 1;
  e.name = p->strings.Intern("k");
  e.op_type = e.name;
  e.kind = model::ActivityKind::kCompute;
  e.stream = stream;
  e.start_ns = start_us * 1000;
  e.duration_ns = dur_us * 1000;
  p->device_events.Append(e);
}

TEST(Plausibility, TwoSerialStreamsOverlappingEachOtherArePossible) {
  model::RankProfile p;
  for (int i = 0; i < 20; ++i) {
    AddStreamKernel(&p, 1, i * 10, 10);     // back to back on stream 1
    AddStreamKernel(&p, 2, i * 10 + 5, 5);  // stream 2 overlaps stream 1 half the time
  }
  p.device_events.SortByStart();
  const auto w = WorstStepPlausibility(p);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->streams, 2);
  EXPECT_EQ(w->compute_kernels, 40);
  EXPECT_EQ(w->kernel_time_ns, 300'000);
  EXPECT_EQ(w->covered_ns, 200'000);
  EXPECT_DOUBLE_EQ(w->concurrency, 1.5);
  EXPECT_EQ(w->same_start_kernels, 0);
  EXPECT_TRUE(w->plausible);
  EXPECT_EQ(PlausibilityWarning(p), "");
}

TEST(Plausibility, RoundedStartsOnOneStreamAreImpossible) {
  model::RankProfile p;
  p.device_events_from = "/x/kernel_details.csv";
  for (int i = 0; i < 12; ++i) AddStreamKernel(&p, 1, 100, 10 + i);  // one start for all
  p.device_events.SortByStart();
  const auto w = WorstStepPlausibility(p);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->streams, 1);
  EXPECT_EQ(w->same_start_kernels, 11);
  EXPECT_EQ(w->covered_ns, 21'000);  // the longest kernel
  EXPECT_FALSE(w->plausible);
  const std::string warning = PlausibilityWarning(p);
  EXPECT_NE(warning.find("implausible device timeline in kernel_details.csv: in step 1"),
            std::string::npos)
      << warning;
}

// The golden fixture: kernel_details.csv whose Start Time was rewritten in
// scientific notation (1.76425E+15) by a spreadsheet.
TEST(Plausibility, SpreadsheetRoundedFixtureWarns) {
  const std::string dir =
      testing::SourceDir() + "/tests/golden/cases/ascend_text/spreadsheet_rounded_starts/input";
  auto loaded = formats::LoadProfiles({dir}, 1);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ASSERT_EQ(loaded->profiles.size(), 1u);
  const auto w = WorstStepPlausibility(loaded->profiles[0]);
  ASSERT_TRUE(w.has_value());
  EXPECT_FALSE(w->plausible);
  EXPECT_GT(w->concurrency, 2.0);
}

// A task longer than its whole step by CANN's own accounting cannot be
// (a Duration column in the wrong unit, rows of another capture).
TEST(Plausibility, TaskLongerThanTheProfilersStepIsImpossible) {
  model::RankProfile p;
  p.device_events_from = "kernel_details.csv";
  for (int i = 0; i < 5; ++i) AddStreamKernel(&p, 1, i * 100, 50);
  AddStreamKernel(&p, 1, 600, 5'000);  // 5 ms in a 1 ms step
  p.device_events.SortByStart();
  model::StepTraceRow row;
  row.step = 1;
  row.computing_ns = 800'000;
  row.free_ns = 200'000;
  p.step_trace.push_back(row);
  const auto w = WorstStepPlausibility(p);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->profiler_step_ns, 1'000'000);
  EXPECT_EQ(w->longer_than_step, 1);
  EXPECT_FALSE(w->plausible);
  EXPECT_NE(PlausibilityWarning(p).find("1 device task(s) last longer than the whole step"),
            std::string::npos);
  p.step_trace[0].free_ns = 5'000'000;  // a 5.8 ms step: possible
  EXPECT_TRUE(WorstStepPlausibility(p)->plausible);
}

}  // namespace
}  // namespace trainscope::analysis
