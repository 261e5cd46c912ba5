// Which inputs form one run (analysis/job/run_grouping.h): ranks that cannot
// be one capture of one job are never merged.
#include "analysis/job/run_grouping.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>
#include <vector>

#include "golden/cli_test_util.h"
#include "test_paths.h"

namespace trainscope::analysis {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

RunIdentity Rank(int32_t rank, const std::string& source, int64_t first_ns, int64_t last_ns) {
  RunIdentity id;
  id.rank = rank;
  id.source = source;
  id.first_ns = first_ns;
  id.last_ns = last_ns;
  return id;
}

std::vector<std::vector<size_t>> Members(const std::vector<RunGroup>& runs) {
  std::vector<std::vector<size_t>> members;
  for (const RunGroup& run : runs) members.push_back(run.members);
  return members;
}

TEST(RunGroupingTest, CoherentJobIsOneRun) {
  // Four ranks of one capture, started a few ms apart (different hosts).
  std::vector<RunIdentity> inputs;
  for (int32_t r = 0; r < 4; ++r)
    inputs.push_back(Rank(r, "r" + std::to_string(r), 100 * kSecond + r * 3'000'000,
                          102 * kSecond + r * 3'000'000));
  EXPECT_EQ(Members(GroupRuns(inputs)), (std::vector<std::vector<size_t>>{{0, 1, 2, 3}}));
  const RunSelection selection = SelectRun(inputs);
  EXPECT_TRUE(selection.runs.empty());  // one run: no runs section
  EXPECT_EQ(selection.kept, (std::vector<size_t>{0, 1, 2, 3}));
}

TEST(RunGroupingTest, SameRankTwiceIsNeverMerged) {
  const std::vector<RunIdentity> inputs = {Rank(0, "a", 0, kSecond), Rank(0, "b", 0, kSecond)};
  EXPECT_EQ(Members(GroupRuns(inputs)), (std::vector<std::vector<size_t>>{{0}, {1}}));
  const RunSelection selection = SelectRun(inputs);
  ASSERT_EQ(selection.runs.size(), 2u);
  EXPECT_TRUE(selection.runs[0].analysed);
  EXPECT_EQ(selection.runs[0].why_apart, "");
  EXPECT_FALSE(selection.runs[1].analysed);
  EXPECT_EQ(selection.runs[1].why_apart, "rank 0 is claimed by both a and b");
  EXPECT_EQ(selection.kept, (std::vector<size_t>{0}));
}

TEST(RunGroupingTest, WindowGapUpToTheShorterCaptureIsOneRun) {
  // Captures of 2 s: a gap of 2 s is tolerated, a gap of 2 s + 1 ns is not.
  const std::vector<RunIdentity> near = {Rank(0, "a", 0, 2 * kSecond),
                                         Rank(1, "b", 4 * kSecond, 6 * kSecond)};
  EXPECT_EQ(GroupRuns(near).size(), 1u);
  const std::vector<RunIdentity> far = {Rank(0, "a", 0, 2 * kSecond),
                                        Rank(1, "b", 4 * kSecond + 1, 6 * kSecond + 1)};
  EXPECT_EQ(GroupRuns(far).size(), 2u);
  // The rule uses the shorter capture: a 1 s capture 1.5 s after a 10 s one.
  const std::vector<RunIdentity> uneven = {Rank(0, "a", 0, 10 * kSecond),
                                           Rank(1, "b", 11'500'000'000, 12'500'000'000)};
  EXPECT_EQ(GroupRuns(uneven).size(), 2u);
}

TEST(RunGroupingTest, HoursApartSaysSo) {
  const int64_t hour = 3600 * kSecond;
  const std::vector<RunIdentity> inputs = {Rank(0, "a", 0, 3 * kSecond),
                                           Rank(1, "b", 2 * hour, 2 * hour + 3 * kSecond)};
  EXPECT_EQ(WhyApart(inputs[1], {0}, inputs),
            "the capture of b starts 2.0 h after the other captures end (captures last 3.0 s at "
            "most; ranks of one run overlap): another capture window");
  EXPECT_EQ(WhyApart(inputs[0], {1}, inputs),
            "the capture of a ends 2.0 h before the other captures start (captures last 3.0 s at "
            "most; ranks of one run overlap): another capture window");
}

TEST(RunGroupingTest, VersionsWorldSizeAndDevicesSplit) {
  RunIdentity a = Rank(0, "a", 0, kSecond);
  RunIdentity b = Rank(1, "b", 0, kSecond);
  a.cann_version = "8.5.0";
  b.cann_version = "8.3.RC1";
  EXPECT_EQ(WhyApart(b, {0}, {a, b}), "CANN 8.5.0 (a) vs 8.3.RC1 (b)");
  b.cann_version = "";  // unknown on one side: no evidence of another run
  EXPECT_EQ(WhyApart(b, {0}, {a, b}), "");
  a.torch_npu_version = "2.9.0";
  b.torch_npu_version = "2.1.0";
  EXPECT_EQ(WhyApart(b, {0}, {a, b}), "torch_npu 2.9.0 (a) vs 2.1.0 (b)");
  b.torch_npu_version = "2.9.0";
  a.world_size = 8;
  b.world_size = 16;
  EXPECT_EQ(WhyApart(b, {0}, {a, b}), "world size 8 (a) vs 16 (b)");
  b.world_size = 8;
  a.device = "NVIDIA H100 80GB HBM3";
  b.device = "AMD Instinct MI300X";
  EXPECT_EQ(WhyApart(b, {0}, {a, b}),
            "device NVIDIA H100 80GB HBM3 (a) vs AMD Instinct MI300X (b)");
}

TEST(RunGroupingTest, LargestRunIsAnalysedEarliestAmongEquals) {
  // Rank 0 twice in one window, then ranks 1 and 2 of the second copy's run.
  const std::vector<RunIdentity> inputs = {Rank(0, "a0", 0, kSecond), Rank(0, "b0", 0, kSecond),
                                           Rank(1, "b1", 0, kSecond)};
  // b1 joins the first run it fits: run 1 (rank 1 is free there).
  EXPECT_EQ(Members(GroupRuns(inputs)), (std::vector<std::vector<size_t>>{{0, 2}, {1}}));
  EXPECT_EQ(AnalysedRun({{{0}}, {{1, 2}}, {{3, 4}}}), 1u);
  EXPECT_EQ(AnalysedRun({{{0}}, {{1}}}), 0u);
}

TEST(RunGroupingTest, UntimedInputsGroupByWhatIsKnown) {
  RunIdentity a;
  a.rank = 0;
  RunIdentity b;
  b.rank = 1;
  EXPECT_EQ(GroupRuns({a, b}).size(), 1u);
}

// The CLI end to end on the hand-made golden inputs: JSON names each run,
// analyses only the first and says why the second is apart; stderr says so.
TEST(RunGroupingCliTest, JsonListsRunsAndAnalysesOne) {
  const std::string input =
      testing::SourceDir() + "/tests/golden/cases/kineto/same_rank_twice/input";
  testing::CommandResult result =
      testing::RunTrainscope({"analyze", input, "--json", "-", "--threads", "1"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("the inputs are 2 runs, not one job; they are not merged"),
            std::string::npos)
      << result.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(result.out).get(doc), simdjson::SUCCESS);
  simdjson::dom::array runs;
  ASSERT_EQ(doc["runs"].get(runs), simdjson::SUCCESS);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_TRUE(runs.at(0)["analysed"].get_bool().value());
  EXPECT_TRUE(runs.at(0)["why_apart"].is_null());
  EXPECT_FALSE(runs.at(1)["analysed"].get_bool().value());
  EXPECT_EQ(
      std::string(runs.at(1)["why_apart"].get_string().value()),
      "rank 0 is claimed by both " + input + "/a.pt.trace.json and " + input + "/b.pt.trace.json");
  EXPECT_EQ(runs.at(1)["sources"].at(0).get_string().value(), input + "/b.pt.trace.json");
  simdjson::dom::array ranks;
  ASSERT_EQ(doc["ranks"].get(ranks), simdjson::SUCCESS);
  ASSERT_EQ(ranks.size(), 1u);  // never two rank 0s in one job
  EXPECT_EQ(ranks.at(0)["source"].get_string().value(), input + "/a.pt.trace.json");
}

TEST(RunGroupingCliTest, HtmlSaysTheInputsAreRuns) {
  const std::string input =
      testing::SourceDir() + "/tests/golden/cases/kineto/same_rank_twice/input";
  testing::CommandResult result =
      testing::RunTrainscope({"analyze", input, "--html", "-", "--threads", "1"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("<b>The inputs are 2 runs, not one job; they are not merged.</b>"),
            std::string::npos);
  EXPECT_NE(result.out.find(": apart because rank 0 is claimed by both " + input +
                            "/a.pt.trace.json and " + input + "/b.pt.trace.json</li>"),
            std::string::npos);
}

TEST(RunGroupingCliTest, OneRunHasNoRunsKey) {
  const std::string input =
      testing::SourceDir() + "/tests/golden/cases/kineto/two_ranks_one_run/input";
  testing::CommandResult result =
      testing::RunTrainscope({"analyze", input, "--json", "-", "--threads", "1"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err, "");
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(result.out).get(doc), simdjson::SUCCESS);
  EXPECT_EQ(doc["runs"].error(), simdjson::NO_SUCH_FIELD);
  simdjson::dom::array ranks;
  ASSERT_EQ(doc["ranks"].get(ranks), simdjson::SUCCESS);
  EXPECT_EQ(ranks.size(), 2u);
}

}  // namespace
}  // namespace trainscope::analysis
