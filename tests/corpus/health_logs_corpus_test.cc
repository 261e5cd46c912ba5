// `trainscope health` on the public training logs of the shared corpus
// (logs/, each with its SOURCE.txt). Every expectation below was checked by
// hand against the file: the records it holds (grep of its training lines),
// how they split into runs and ranks, and where its events are.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "golden/cli_test_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

struct SeriesSeen {
  bool read = false;
  int64_t records = 0;
  int64_t run = 0;
  int64_t rank = -1;  // -1: the lines name none
  std::string run_start;
  int64_t back_from_step = -1;
  int64_t first_step = -1;
  int64_t last_step = -1;
  int64_t lines_read = 0;
  std::map<std::string, int64_t> finding_steps;  // id -> evidence "step" / "last_step"
};

struct HealthSeen {
  int exit_code = -1;
  std::string verdict;
  std::vector<SeriesSeen> series;
};

int64_t IntOr(simdjson::dom::element e, int64_t fallback) {
  int64_t v = 0;
  return e.get(v) == simdjson::SUCCESS ? v : fallback;
}

HealthSeen Health(const std::string& path) {
  HealthSeen seen;
  const CommandResult r = RunTrainscope({"health", path, "--json", "-"});
  seen.exit_code = r.exit_code;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  EXPECT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.err << r.out.substr(0, 200);
  if (doc.is_null()) return seen;
  std::string_view verdict;
  EXPECT_EQ(doc["verdict"]["text"].get(verdict), simdjson::SUCCESS);
  seen.verdict = std::string(verdict);
  for (simdjson::dom::element run : doc["runs"].get_array()) {
    SeriesSeen s;
    EXPECT_EQ(run["read"].get(s.read), simdjson::SUCCESS);
    s.records = IntOr(run["records"], -1);
    s.run = IntOr(run["run"], -1);
    s.rank = IntOr(run["rank"], -1);
    std::string_view start;
    if (run["run_start"].get(start) == simdjson::SUCCESS) s.run_start = std::string(start);
    s.back_from_step = IntOr(run["back_from_step"], -1);
    s.first_step = IntOr(run["first_step"], -1);
    s.last_step = IntOr(run["last_step"], -1);
    s.lines_read = IntOr(run["lines"]["read"], -1);
    for (simdjson::dom::element f : run["findings"].get_array()) {
      std::string_view id;
      EXPECT_EQ(f["id"].get(id), simdjson::SUCCESS);
      int64_t step = IntOr(f["evidence_values"]["step"], -1);
      if (step < 0) step = IntOr(f["evidence_values"]["last_step"], -1);
      s.finding_steps[std::string(id)] = step;
    }
    seen.series.push_back(std::move(s));
  }
  return seen;
}

std::string Log(const std::string& corpus, const std::string& rel) {
  return corpus + "/logs/" + rel;
}

// Files in which no line is one of the formats read: not read, exit 2,
// never "healthy". DeepSpeed-Chat prints `epoch: 0|step: 0|ppo_ep: 1|
// act_loss: ...` (2104 lines), the HF Trainer state is one JSON document
// (259 lines), MindSpeed-LLM's CI baseline a JSON of arrays (97 lines).
TEST(HealthLogsCorpus, FilesOfNoReadFormatAreNotRead) {
  TS_REQUIRE_CORPUS("logs");
  const std::vector<std::pair<std::string, int64_t>> files = {
      {"l_deepspeed_chat_opt_actor_critic/actor_opt-1.3b_critic_opt-350m_globalBatchSize64.log",
       2104},
      {"l_hf_trainer_state_qwen05_verifier/trainer_state.json", 259},
      {"l_mindspeed_llm_docs_log/"
       "tests__pipeline__legacy__baseline__deepseek2_tp1_pp1_mcore_moe.json",
       97}};
  for (const auto& [rel, lines] : files) {
    SCOPED_TRACE(rel);
    const HealthSeen h = Health(Log(corpus_path, rel));
    EXPECT_EQ(h.exit_code, 2);
    EXPECT_EQ(h.verdict.find("healthy"), std::string::npos) << h.verdict;
    EXPECT_EQ(h.verdict.rfind("not read: 1 of 1 log(s)", 0), 0u) << h.verdict;
    ASSERT_EQ(h.series.size(), 1u);
    EXPECT_FALSE(h.series[0].read);
    EXPECT_EQ(h.series[0].records, 0);
    EXPECT_EQ(h.series[0].lines_read, lines);
  }
}

// MindSpeed-LLM's FSDP2 quick start shows two runs of three iterations
// (lines 215-217 and 332-334, both `iteration 1/2000` to `3/2000`): two
// series, the second a restart after step 3; losses fall in both.
TEST(HealthLogsCorpus, MindSpeedQuickStartTwoRuns) {
  TS_REQUIRE_CORPUS("logs");
  const HealthSeen h = Health(Log(
      corpus_path, "l_mindspeed_llm_docs_log/docs__zh__pytorch__training__fsdp2_quick_start.md"));
  EXPECT_EQ(h.exit_code, 0);
  ASSERT_EQ(h.series.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(h.series[i].run, static_cast<int64_t>(i + 1));
    EXPECT_EQ(h.series[i].rank, -1);
    EXPECT_EQ(h.series[i].records, 3);
    EXPECT_EQ(h.series[i].first_step, 1);
    EXPECT_EQ(h.series[i].last_step, 3);
    EXPECT_TRUE(h.series[i].finding_steps.empty());
  }
  EXPECT_EQ(h.series[1].run_start, "restart");
  EXPECT_EQ(h.series[1].back_from_step, 3);
  EXPECT_EQ(h.verdict,
            "healthy: no findings in 6 record(s) in 2 series (runs x ranks) of 1 log(s)");
}

// TorchTitan Llama-2-7B on Aurora: 105 `step:` lines, one series (the
// launcher prints them once, without a rank prefix). The loss starts at
// 10.86 and jumps to 14.45 (step 2) and 15.20 (step 3): an early spike,
// 33% over the running minimum; at step 18 it rises 7.365 -> 8.541 (with
// grad norm 42.5, 4.2x step 17's, under the explosion bar of 100x).
// Timestamps every ~0.62 s, no silence.
TEST(HealthLogsCorpus, TorchTitanAuroraEarlySpikes) {
  TS_REQUIRE_CORPUS("logs");
  const HealthSeen h = Health(
      Log(corpus_path,
          "l_torchtitan_aurora_xpu_24rank/torchtitan__experiments__blendcorpus__docs__aurora.md"));
  EXPECT_EQ(h.exit_code, 0);
  ASSERT_EQ(h.series.size(), 1u);
  const SeriesSeen& s = h.series[0];
  EXPECT_EQ(s.records, 105);
  EXPECT_EQ(s.first_step, 1);
  EXPECT_EQ(s.last_step, 105);
  const std::map<std::string, int64_t> expected = {{"early-loss-spike", 2}, {"loss-spike", 18}};
  EXPECT_EQ(s.finding_steps, expected);
}

// XTuner's installation page: a 13-step run, then a 109-step run printed
// up to step 21 (lines 244-266), both on rank 0: two series, the second a
// restart; the first run's 0.05 s steps and the second's 0.33 s steps are
// not a throughput drop. Losses fall (12.08 -> 9.13, 5.85 -> 5.20 with a
// minimum 3.505).
TEST(HealthLogsCorpus, XTunerTwoRunsOnRankZero) {
  TS_REQUIRE_CORPUS("logs");
  const HealthSeen h =
      Health(Log(corpus_path, "l_xtuner_docs_log/docs__en__get_started__installation.md"));
  EXPECT_EQ(h.exit_code, 0);
  ASSERT_EQ(h.series.size(), 2u);
  EXPECT_EQ(h.series[0].records, 13);
  EXPECT_EQ(h.series[1].records, 21);
  EXPECT_EQ(h.series[0].rank, 0);
  EXPECT_EQ(h.series[1].rank, 0);
  EXPECT_EQ(h.series[1].run_start, "restart");
  EXPECT_EQ(h.series[1].back_from_step, 13);
  EXPECT_TRUE(h.series[0].finding_steps.empty());
  EXPECT_TRUE(h.series[1].finding_steps.empty());
  EXPECT_EQ(h.verdict.rfind("healthy: no findings in 34 record(s) in 2 series", 0), 0u)
      << h.verdict;
}

// XTuner's SFT page: 8 ranks' lines interleaved, step 1 on every rank and
// step 2 on ranks 2, 5 and 1 (lines 83-93): eight series of one or two
// records, too few to judge.
TEST(HealthLogsCorpus, XTunerEightRanksInterleaved) {
  TS_REQUIRE_CORPUS("logs");
  const HealthSeen h = Health(Log(corpus_path, "l_xtuner_docs_log/docs__en__get_started__sft.md"));
  EXPECT_EQ(h.exit_code, 0);
  ASSERT_EQ(h.series.size(), 8u);
  for (size_t r = 0; r < 8; ++r) {
    EXPECT_EQ(h.series[r].rank, static_cast<int64_t>(r));
    EXPECT_EQ(h.series[r].run, 1);
    EXPECT_EQ(h.series[r].records, (r == 1 || r == 2 || r == 5) ? 2 : 1) << r;
    EXPECT_TRUE(h.series[r].finding_steps.empty());
  }
  EXPECT_EQ(h.verdict.find("healthy"), std::string::npos) << h.verdict;
  EXPECT_EQ(h.verdict.rfind("cannot conclude", 0), 0u) << h.verdict;
}

}  // namespace
}  // namespace trainscope::testing
