// api_statistic.csv, operator_details.csv and kernel_details.csv's OP State
// on the real public samples (docs/ascend-formats.md section 5), and what
// the dynamic-shape finding and the operator_details.csv attribution make
// of them (docs/findings.md "Dynamic shapes and online compilation").
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/motifs/fingerprint_attribution.h"
#include "analysis/step/online_compile.h"
#include "corpus/corpus_inputs.h"
#include "formats/ascend/ascend_rank_loader.h"
#include "golden/cli_test_util.h"
#include "ledger_checks.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kResNet1 = "ascend/msinsight-pytorch-2rank-text-level1";

TEST(HostApiCorpus, EveryOperatorDetailsAndApiStatisticSampleParses) {
  TS_REQUIRE_CORPUS("ascend");
  struct Case {
    const char* rank_dir;
    int64_t operators;    // rows of operator_details.csv (-1: no file)
    int64_t with_source;  // of them, with a user frame in their Call Stack
    int64_t api_rows;     // rows of api_statistic.csv (-1: no file)
  };
  const Case cases[] = {
      {"ascend/msinsight-pytorch-2rank-text-level0/rank0_ascend_pt", 859, 315, -1},
      {"ascend/msinsight-pytorch-2rank-text-level1/rank1_ascend_pt", 859, 315, 57},
      {"ascend/msinsight-pytorch-2rank-text-level2/rank0_ascend_pt", 859, 315, 75},
      {"ascend/msinsight-server-testdata-gpt3-2rank-oldformat/test_rank_1", 3, 3, -1},
      {"ascend/msinsight-st-qwen3-0.6b-4rank-level2-cann8.3.RC1/rank_0_ascend_pt", -1, 0, 91},
      {"ascend/msinsight-st-qwen3-0.6b-4rank-level2-cann8.3.RC1/rank_2_ascend_pt", -1, 0, 109},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.rank_dir);
    Result<model::RankProfile> loaded = formats::LoadAscendRank(corpus_path + "/" + c.rank_dir);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    const model::RankProfile& profile = *loaded;
    const RowLedger* ops = LedgerFor(profile, "operator_details.csv");
    if (c.operators < 0) {
      EXPECT_EQ(ops, nullptr);
    } else {
      ASSERT_NE(ops, nullptr);
      // 859 records over 6,224 physical lines: every multi-line record whole.
      EXPECT_EQ(ops->rows_used(), c.operators);
      EXPECT_EQ(ops->rows_skipped(), 0);
      int64_t with_source = 0;
      for (const model::OperatorDetailRow& row : profile.operator_details) {
        with_source += row.source != StringPool::kEmpty;
        EXPECT_EQ(profile.strings.Get(row.input_shapes).find('\n'), std::string_view::npos);
      }
      EXPECT_EQ(with_source, c.with_source);
    }
    const RowLedger* api = LedgerFor(profile, "api_statistic.csv");
    if (c.api_rows < 0) {
      EXPECT_EQ(api, nullptr);
      EXPECT_FALSE(profile.has_api_statistic);
    } else {
      ASSERT_NE(api, nullptr);
      EXPECT_EQ(api->rows_used(), c.api_rows);
      EXPECT_EQ(api->rows_skipped(), 0);
    }
  }
}

TEST(HostApiCorpus, DynamicShapeReadingsOfTheRealProfiles) {
  TS_REQUIRE_CORPUS("ascend");
  // ResNet Level1 rank 0: every compute kernel dynamic, 19 aclop
  // compile-and-execute calls (14.05 ms) in its one captured step.
  Result<model::RankProfile> resnet =
      formats::LoadAscendRank(corpus_path + "/" + kResNet1 + "/rank0_ascend_pt");
  ASSERT_TRUE(resnet.ok()) << resnet.status().message();
  const auto dyn = analysis::ComputeDynamicShapes(*resnet, 50);
  ASSERT_TRUE(dyn.has_value());
  EXPECT_EQ(dyn->kernels, 187);
  EXPECT_EQ(dyn->dynamic_kernels, 187);
  const auto api = analysis::SummarizeHostApis(*resnet);
  ASSERT_TRUE(api.has_value());
  EXPECT_EQ(api->steps, 1);
  EXPECT_EQ(api->compile_calls, 19);
  EXPECT_EQ(api->compile_ns, 14'049'230);
  EXPECT_EQ(api->compile_apis, "aclopCompileAndExecute");
  EXPECT_EQ(api->launch_calls, 191);  // one per kernel of the step

  // Qwen3 (CANN 8.3.RC1, aclnn): every compute kernel dynamic, no compile API.
  Result<model::RankProfile> qwen =
      formats::LoadAscendRank(corpus_path + "/" + testing::kQwenLevel2Job + "/rank_0_ascend_pt");
  ASSERT_TRUE(qwen.ok()) << qwen.status().message();
  const auto qwen_dyn = analysis::ComputeDynamicShapes(*qwen, 13);
  ASSERT_TRUE(qwen_dyn.has_value());
  EXPECT_EQ(qwen_dyn->dynamic_kernels, 2448);
  EXPECT_EQ(qwen_dyn->kernels, 2448);
  const auto qwen_api = analysis::SummarizeHostApis(*qwen);
  ASSERT_TRUE(qwen_api.has_value());
  EXPECT_EQ(qwen_api->compile_calls, 0);
  EXPECT_EQ(qwen_api->launch_calls, 2467);

  // Level0 has no OP State: unknown, not static.
  Result<model::RankProfile> level0 = formats::LoadAscendRank(
      corpus_path + "/ascend/msinsight-pytorch-2rank-text-level0/rank0_ascend_pt");
  ASSERT_TRUE(level0.ok());
  EXPECT_FALSE(analysis::ComputeDynamicShapes(*level0, 50).has_value());
}

// The finding ids of a JSON report.
std::vector<std::string> FindingIds(const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::vector<std::string> ids;
  if (parser.parse(json).get(doc) != simdjson::SUCCESS) return ids;
  simdjson::dom::array findings;
  if (doc["findings"].get(findings) != simdjson::SUCCESS) return ids;
  for (simdjson::dom::element f : findings) {
    std::string_view id;
    if (f["id"].get(id) == simdjson::SUCCESS) ids.emplace_back(id);
  }
  return ids;
}

bool Has(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

TEST(HostApiCorpus, DynamicShapeFlagsTheResNetJobOnlyWhereItCompilesOnline) {
  TS_REQUIRE_CORPUS("ascend");
  for (const char* job : {kResNet1, "ascend/msinsight-pytorch-2rank-text-level2"}) {
    SCOPED_TRACE(job);
    const CommandResult r =
        RunTrainscope({"analyze", corpus_path + "/" + job, "--json", "-", "--threads", "2"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(Has(FindingIds(r.out), "dynamic-shape"));
    EXPECT_NE(r.out.find("set_compile_mode(jit_compile=False)"), std::string::npos);
  }
  // Level0 (no OP State, no api_statistic.csv) and Qwen3 (no compilation).
  for (const char* job : {"ascend/msinsight-pytorch-2rank-text-level0", testing::kQwenLevel2Job}) {
    SCOPED_TRACE(job);
    const CommandResult r =
        RunTrainscope({"analyze", corpus_path + "/" + job, "--json", "-", "--threads", "2"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(Has(FindingIds(r.out), "dynamic-shape"));
  }
}

TEST(HostApiCorpus, OperatorDetailsNameSourceLinesWithoutTheTrace) {
  TS_REQUIRE_CORPUS("ascend");
  // The ResNet Level1 rank without its trace_view.json (copied to a temp
  // dir, never into the repository): the chains' source lines come from
  // operator_details.csv's call stacks alone.
  const std::string from =
      corpus_path + "/" + kResNet1 + "/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/";
  const fs::path rank = fs::path(MakeTempDir("no_trace")) / "rank0_ascend_pt";
  fs::create_directories(rank / "ASCEND_PROFILER_OUTPUT");
  for (const char* file : {"kernel_details.csv", "operator_details.csv", "step_trace_time.csv"}) {
    fs::copy_file(from + file, rank / "ASCEND_PROFILER_OUTPUT" / file);
  }
  Result<model::RankProfile> profile = formats::LoadAscendRank(rank.string());
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  ASSERT_FALSE(profile->timeline.present);
  const analysis::HostAttributor host(*profile);
  ASSERT_TRUE(host.available());
  // The optimizer's ReduceSum -> Mul -> Mul chain (aclnnReduceSum, aclnnMuls).
  const model::DeviceEvents& events = profile->device_events;
  std::vector<int64_t> chain;
  for (size_t i = 0; i + 2 < events.size(); ++i) {
    if (profile->strings.Get(events.name[i]).substr(0, 14) == "aclnnReduceSum" &&
        profile->strings.Get(events.name[i + 1]).substr(0, 9) == "aclnnMuls") {
      chain = {events.start_ns[i], events.start_ns[i + 1], events.start_ns[i + 2]};
      break;
    }
  }
  ASSERT_FALSE(chain.empty());
  const analysis::HostAttribution a = host.Attribute(chain);
  EXPECT_NE(a.source.find("main.py("), std::string::npos) << a.source;
  EXPECT_NE(a.framework_op.find("aclnnMuls"), std::string::npos) << a.framework_op;
}

}  // namespace
}  // namespace trainscope::testing
