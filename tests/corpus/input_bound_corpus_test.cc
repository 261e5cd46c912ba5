// Input-bound on the real profiles with data-loader host events
// (docs/findings.md "Input-bound steps" lists these numbers): the
// num_workers=0 ResNet trace is input-bound, the profiles whose loader has
// worker processes are not, and a loader before the capture's first device
// event claims no idle.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "golden/cli_test_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

struct LoaderStep {
  int64_t rank = -1;
  int64_t step = -1;
  int64_t calls = 0;
  int64_t single_process_calls = 0;
  double loader_us = 0;
  double idle_us = 0;
  double iteration_us = 0;
};

struct Analysed {
  std::vector<LoaderStep> steps;     // every step with a data_loader object
  std::vector<int64_t> input_ranks;  // ranks of the input-bound finding
  double idle_pct = -1;              // its evidence (the worst rank's)
  std::string remedy;
};

Analysed Analyse(const std::string& input) {
  Analysed a;
  const CommandResult r = RunTrainscope({"analyze", input, "--json", "-", "--threads", "2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  EXPECT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS);
  if (r.exit_code != 0) return a;
  for (simdjson::dom::element rank : doc["ranks"].get_array()) {
    for (simdjson::dom::element step : rank["steps"].get_array()) {
      simdjson::dom::element d = step["data_loader"];
      if (d.is_null()) continue;
      LoaderStep s;
      s.rank = rank["rank"].get_int64();
      s.step = step["step"].get_int64();
      s.calls = d["calls"].get_int64();
      s.single_process_calls = d["single_process_calls"].get_int64();
      s.loader_us = d["loader_us"].get_double();
      s.idle_us = d["idle_us"].get_double();
      s.iteration_us = d["iteration_us"].get_double();
      a.steps.push_back(s);
    }
  }
  for (simdjson::dom::element f : doc["findings"].get_array()) {
    if (std::string_view(f["id"].get_string()) != "input-bound") continue;
    for (simdjson::dom::element r2 : f["ranks"].get_array())
      a.input_ranks.push_back(r2.get_int64());
    a.idle_pct = f["evidence_values"]["idle_pct"].get_double();
    a.remedy = std::string(std::string_view(f["remedy"].get_string()));
  }
  return a;
}

std::string FirstTrace(const std::string& dir, const std::string& prefix) {
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && name.find(".json") != std::string::npos) {
      return entry.path().string();
    }
  }
  return "";
}

TEST(InputBoundCorpus, ResNetWithoutLoaderWorkersIsInputBound) {
  TS_REQUIRE_CORPUS("kineto/kineto_tbplugin_resnet50_2021_oldschema");
  const Analysed a = Analyse(
      FirstTrace(corpus_path + "/kineto/kineto_tbplugin_resnet50_2021_oldschema", "worker0"));
  ASSERT_EQ(a.steps.size(), 6u);  // ProfilerStep#5-10
  for (const LoaderStep& s : a.steps) {
    SCOPED_TRACE(s.step);
    EXPECT_EQ(s.calls, 1);
    EXPECT_EQ(s.single_process_calls, 1);  // num_workers=0
    EXPECT_GT(s.loader_us, 60'000);        // 62.6-73.4 ms per batch
    if (s.step == 5) {
      // The first captured step: its loader ran before the first recorded
      // device event, so its idle is unknown and none is claimed.
      EXPECT_EQ(s.idle_us, 0);
    } else {
      EXPECT_GT(s.idle_us, 45'000);  // 48.2-62.0 ms of a 166-182 ms iteration
      EXPECT_LT(s.idle_us, s.loader_us);
      EXPECT_GT(s.idle_us / s.iteration_us, 0.25);
    }
  }
  EXPECT_EQ(a.input_ranks, std::vector<int64_t>{0});
  EXPECT_NEAR(a.idle_pct, 32.57, 0.01);  // step 6: 57.0 of its 175.2 ms iteration
  EXPECT_NE(a.remedy.find("num_workers is 0"), std::string::npos) << a.remedy;
}

TEST(InputBoundCorpus, LoaderWorkersKeepTheHtaTracesFed) {
  TS_REQUIRE_CORPUS("kineto/hta_trace_diff_pairs/trace_diff");
  for (const char* side : {"test", "control"}) {
    SCOPED_TRACE(side);
    const std::string dir = corpus_path + "/kineto/hta_trace_diff_pairs/trace_diff/" + side;
    const Analysed a = Analyse(FirstTrace(dir, side));
    ASSERT_EQ(a.steps.size(), 6u);  // ProfilerStep#1009-1014
    for (const LoaderStep& s : a.steps) {
      EXPECT_EQ(s.calls, 1);
      EXPECT_EQ(s.single_process_calls, 0);
      EXPECT_LT(s.loader_us, 200);  // 67-118 us: batches were ready
      EXPECT_LE(s.idle_us, s.loader_us);
      EXPECT_LT(s.idle_us / s.iteration_us, 0.002);  // under 0.2% of the iteration
    }
    EXPECT_TRUE(a.input_ranks.empty());
  }
}

TEST(InputBoundCorpus, DlrmIdlesBehindTheLoaderOnlyWhereTheDeviceWasRecorded) {
  TS_REQUIRE_CORPUS("kineto/dlrm_ddp_8rank_v100_param");
  const Analysed a = Analyse(corpus_path + "/kineto/dlrm_ddp_8rank_v100_param");
  ASSERT_EQ(a.steps.size(), 8u);  // one step per rank
  for (const LoaderStep& s : a.steps) {
    SCOPED_TRACE(s.rank);
    EXPECT_EQ(s.calls, 1);
    EXPECT_EQ(s.single_process_calls, 1);
    EXPECT_GT(s.loader_us, 1'000);
    EXPECT_LT(s.loader_us, 1'500);
    // Rank 3 ran kernels the loader launched, with 1.09 ms of gaps between
    // them; rank 1 0.07 ms; on the others the loader ended before the first
    // recorded device event.
    const double expected = s.rank == 3 ? 1'089 : s.rank == 1 ? 67 : 0;
    EXPECT_NEAR(s.idle_us, expected, 1);
  }
  EXPECT_EQ(a.input_ranks, std::vector<int64_t>{3});
  EXPECT_NEAR(a.idle_pct, 5.74, 0.01);  // rank 3: 1.089 of its 18.97 ms iteration
}

TEST(InputBoundCorpus, AscendResNetLoaderRunsBeforeTheCapturedDeviceWork) {
  for (const char* level : {"level0", "level1", "level2"}) {
    const std::string job = std::string("ascend/msinsight-pytorch-2rank-text-") + level;
    TS_REQUIRE_CORPUS(job);
    SCOPED_TRACE(level);
    const Analysed a = Analyse(corpus_path + "/" + job);
    ASSERT_EQ(a.steps.size(), 2u);  // ProfilerStep#50 of ranks 0 and 1
    for (const LoaderStep& s : a.steps) {
      EXPECT_EQ(s.step, 50);
      EXPECT_EQ(s.calls, 1);
      EXPECT_EQ(s.single_process_calls, 0);  // _MultiProcessingDataLoaderIter
      EXPECT_GT(s.loader_us, 3'000);         // 3.3-4.4 ms
      EXPECT_LT(s.loader_us, 5'000);
      EXPECT_EQ(s.idle_us, 0);  // the only captured step: unknown, not idle
    }
    EXPECT_TRUE(a.input_ranks.empty());
  }
}

}  // namespace
}  // namespace trainscope::testing
