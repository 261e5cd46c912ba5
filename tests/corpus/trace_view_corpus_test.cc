// Ascend trace_view.json: breakdown from device events vs the Overlap
// Analysis segments and step_trace_time.csv (ResNet 2-rank level0/1/2).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "analysis/step/step_budget.h"
#include "formats/trace/trace_view_reader.h"
#include "model/rank_profile.h"
#include "test_paths.h"

namespace trainscope {
namespace {

// Computing, Communication(Not Overlapped), Free from step_trace_time.csv (µs).
struct StepTrace {
  double computing, comm_not_overlapped, free;
};

StepTrace ReadStepTrace(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "r");
  char line[1024];
  StepTrace st{};
  if (f == nullptr) return st;
  if (std::fgets(line, sizeof line, f) && std::fgets(line, sizeof line, f)) {
    double step = 0, overlapped = 0, comm = 0;
    std::sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf", &step, &st.computing, &st.comm_not_overlapped,
                &overlapped, &comm, &st.free);
  }
  std::fclose(f);
  return st;
}

void CheckRank(const std::string& dir) {
  model::RankProfile profile;
  ASSERT_TRUE(formats::ReadTraceView(dir + "/trace_view.json", &profile).ok());
  EXPECT_TRUE(profile.warnings.empty());
  const model::Timeline& tl = profile.timeline;
  EXPECT_FALSE(tl.overlap.empty());
  EXPECT_EQ(tl.step_source, model::StepSource::kProfilerStep);
  StepTrace st = ReadStepTrace(dir + "/step_trace_time.csv");
  auto budget = analysis::ComputeStepBudget(profile, model::kNoStep);
  ASSERT_TRUE(budget.has_value());
  const analysis::TimeBudget& b = budget->budget;
  double computing = b.computation_ns / 1e3;
  double comm_no = b.exposed_communication_ns / 1e3;
  double free = b.idle_ns / 1e3;
  std::printf(
      "%s\n  computing %.3f vs %.3f, comm(not overlapped) %.3f vs %.3f, free %.3f vs %.3f (us)\n",
      dir.c_str(), computing, st.computing, comm_no, st.comm_not_overlapped, free, st.free);
  EXPECT_NEAR(computing, st.computing, st.computing * 0.005);
  EXPECT_NEAR(comm_no, st.comm_not_overlapped, st.comm_not_overlapped * 0.005);
  EXPECT_NEAR(free, st.free, st.free * 0.005);
}

TEST(TraceViewCorpus, ResNetBreakdownMatchesStepTraceTime) {
  TS_REQUIRE_CORPUS("ascend/msinsight-pytorch-2rank-text-level1");
  for (const char* level : {"level0", "level1", "level2"}) {
    for (const char* rank : {"rank0", "rank1"}) {
      std::string dir = corpus_path + "/ascend/msinsight-pytorch-2rank-text-" + level + "/" + rank +
                        "_ascend_pt/ASCEND_PROFILER_OUTPUT";
      if (!std::filesystem::exists(dir + "/trace_view.json")) continue;
      CheckRank(dir);
    }
  }
}

}  // namespace
}  // namespace trainscope
