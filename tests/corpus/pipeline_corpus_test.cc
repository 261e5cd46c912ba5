// The pipeline-parallel job of the corpus gets pipeline findings and the
// overlap switches of its framework. That remedies fit
// the platform on every corpus input is checked by the corpus JSON sweep
// (json_sanity_corpus_test.cc, platform_remedy_check.h).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "golden/cli_test_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

// The Qwen3 0.6B job of the corpus is pipeline-parallel (PP=2, DP=2 in its
// profiler_metadata.json): its send/receive waits and the unequal stages are
// pipeline findings, and its exposed collectives get Megatron/MindSpeed's
// overlap switches, not FSDP prefetch.
TEST(PipelineCorpus, TheQwen3PipelineJobGetsPipelineFindings) {
  TS_REQUIRE_CORPUS("ascend");
  const std::string input =
      corpus_path + "/ascend/msinsight-st-qwen3-0.6b-4rank-level2-cann8.3.RC1";
  const CommandResult r = RunTrainscope({"analyze", input, "--json", "-", "--threads", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS);
  simdjson::dom::array findings;
  ASSERT_EQ(doc["findings"].get(findings), simdjson::SUCCESS);
  bool bubble = false, imbalance = false;
  for (simdjson::dom::element finding : findings) {
    std::string_view id, remedy;
    ASSERT_EQ(finding["id"].get(id), simdjson::SUCCESS);
    ASSERT_EQ(finding["remedy"].get(remedy), simdjson::SUCCESS);
    EXPECT_EQ(remedy.find("FSDP"), std::string_view::npos) << id << ": " << remedy;
    if (id == "pipeline-bubble") bubble = true;
    if (id == "stage-imbalance") {
      imbalance = true;
      simdjson::dom::array ranks;
      ASSERT_EQ(finding["ranks"].get(ranks), simdjson::SUCCESS);
      // The last stage (ranks 2 and 3) runs the 151,936-wide output layer and the loss.
      ASSERT_EQ(ranks.size(), 2u);
      EXPECT_EQ(int64_t(ranks.at(0)), 2);
      EXPECT_EQ(int64_t(ranks.at(1)), 3);
    }
  }
  EXPECT_TRUE(bubble);
  EXPECT_TRUE(imbalance);
}

}  // namespace
}  // namespace trainscope::testing
