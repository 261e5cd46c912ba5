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
  std::string rank_source;
  int64_t ranks_in_run = 0;
  int64_t engine = -1;  // -1: no DeepSpeed engine's lines
  int64_t engines_in_run = 0;
  std::string format;
  std::string run_start;
  int64_t back_from_step = -1;
  int64_t first_step = -1;
  int64_t last_step = -1;
  int64_t lines_read = 0;
  int64_t lines_used = 0;
  int64_t skipped_iterations = -1;
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
    s.ranks_in_run = IntOr(run["ranks_in_run"], -1);
    s.engine = IntOr(run["engine"], -1);
    s.engines_in_run = IntOr(run["engines_in_run"], -1);
    std::string_view text;
    if (run["rank_source"].get(text) == simdjson::SUCCESS) s.rank_source = std::string(text);
    if (run["format"].get(text) == simdjson::SUCCESS) s.format = std::string(text);
    std::string_view start;
    if (run["run_start"].get(start) == simdjson::SUCCESS) s.run_start = std::string(start);
    s.back_from_step = IntOr(run["back_from_step"], -1);
    s.first_step = IntOr(run["first_step"], -1);
    s.last_step = IntOr(run["last_step"], -1);
    s.lines_read = IntOr(run["lines"]["read"], -1);
    s.lines_used = IntOr(run["lines"]["used"], -1);
    s.skipped_iterations = IntOr(run["skipped_iterations"], -1);
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

// Hugging Face Trainer state (json.dumps indent=2): 24 training entries of
// 7 lines each in log_history (steps 5 to 120 every 5), 5 evaluation
// entries, the summary and the document's other lines skipped (259 lines:
// 168 used, 91 skipped). The loss falls 1.285 -> 0.025 (min 0.0167 at
// step 110); its wobbles at the floor (0.0805 -> 0.1152 at step 25,
// 0.0167 -> 0.0275 at step 115) are no spike: the early one undoes 3% of
// the fall from 1.285, the later rises score under 3.5 on the rises before
// them. Grad norm 33.4 at step 5 down to 1.66-7.04: no explosion.
TEST(HealthLogsCorpus, HfTrainerStateLogHistory) {
  TS_REQUIRE_CORPUS("logs");
  const HealthSeen h =
      Health(Log(corpus_path, "l_hf_trainer_state_qwen05_verifier/trainer_state.json"));
  EXPECT_EQ(h.exit_code, 0);
  ASSERT_EQ(h.series.size(), 1u);
  const SeriesSeen& s = h.series[0];
  EXPECT_TRUE(s.read);
  EXPECT_EQ(s.records, 24);
  EXPECT_EQ(s.rank, -1);
  EXPECT_EQ(s.first_step, 5);
  EXPECT_EQ(s.last_step, 120);
  EXPECT_EQ(s.lines_read, 259);
  EXPECT_EQ(s.lines_used, 168);
  EXPECT_TRUE(s.finding_steps.empty());
  EXPECT_EQ(h.verdict,
            "healthy: no findings in 24 record(s) in 1 series (runs x ranks) of 1 log(s)");
}

// The same state written on one line (minified here into a temporary
// directory, as json.dumps without indent or a JSON tool writes it): the
// same 24 records, steps 5 to 120, and no finding; the document is one line
// of the ledger, used.
TEST(HealthLogsCorpus, HfTrainerStateOnOneLine) {
  TS_REQUIRE_CORPUS("logs");
  const std::string json =
      ReadFileBytes(Log(corpus_path, "l_hf_trainer_state_qwen05_verifier/trainer_state.json"));
  ASSERT_FALSE(json.empty());
  std::string minified(json.size(), '\0');
  size_t length = 0;
  ASSERT_EQ(simdjson::minify(json.data(), json.size(), minified.data(), length), simdjson::SUCCESS);
  minified.resize(length);
  ASSERT_EQ(minified.find('\n'), std::string::npos);
  const std::string path = MakeTempDir("trainer_state_one_line") + "/trainer_state.json";
  WriteFileBytes(path, minified + "\n");
  const HealthSeen h = Health(path);
  EXPECT_EQ(h.exit_code, 0);
  ASSERT_EQ(h.series.size(), 1u);
  const SeriesSeen& s = h.series[0];
  EXPECT_TRUE(s.read);
  EXPECT_EQ(s.records, 24);
  EXPECT_EQ(s.first_step, 5);
  EXPECT_EQ(s.last_step, 120);
  EXPECT_EQ(s.lines_read, 1);
  EXPECT_EQ(s.lines_used, 1);
  EXPECT_TRUE(s.finding_steps.empty());
  EXPECT_EQ(h.verdict,
            "healthy: no findings in 24 record(s) in 1 series (runs x ranks) of 1 log(s)");
}

// DeepSpeed-Chat PPO (OPT-1.3b actor, OPT-350m critic): 477 `epoch: 0|step:
// N|...|act_loss:` lines (steps 0 to 476, one run), 476 `|E2E latency=`
// lines (the step times: 7.99 s at step 0, then about 3.8 s) and 14
// `OVERFLOW! Rank 0 Skipping step` lines (two per step at steps 0-2, one
// at steps 5, 10, 21, 57, 91, 96, 211, 212). Every 10 steps the two
// DeepSpeed engines print `[Rank 0] step=N, skipped=K, lr=[...]` (94
// lines, steps 10 to 470 twice) with the ThroughputTimer's line between
// them (47): the first of each pair is the actor's (lr 5.79e-07 at step 10
// = 9.65e-6 x 6/100 warm-up steps, 10 - 4 skipped; the command's
// --actor_learning_rate 9.65e-6), the second the critic's (3.5e-07 = 5e-6 x
// 7/100). Used 477 + 476 + 14 + 94 + 47 = 1108 of 2104 lines. Three
// series: the PPO steps (the 14 overflows counted on them) and one per
// engine, 47 records each, whose running `skipped` (actor 4 at step 10, 5
// at 20, 6 at 60, 7 at 100; critic 3, 4 at 30, 5 at 100, 7 at 220) sums to
// 7 each: 7 + 7 = the 14 overflow lines. Read as one series the engines'
// lines would be a resume at every line. The engines' step time comes from
// their timestamps: step 10 at 08:48:36.035, step 470 at 09:17:45.428,
// 1749.4 s over 460 steps = 3.80 s, as the PPO lines' E2E latency. 14
// skipped steps in 477 (7 in 470 per engine) are the scaler finding its
// scale (not over 16): no fp16-overflows. The actor loss crosses 0: the
// loss ratio rules do not judge it.
TEST(HealthLogsCorpus, DeepSpeedChatPpoRunAndItsTwoEngines) {
  TS_REQUIRE_CORPUS("logs");
  const HealthSeen h = Health(Log(
      corpus_path,
      "l_deepspeed_chat_opt_actor_critic/actor_opt-1.3b_critic_opt-350m_globalBatchSize64.log"));
  EXPECT_EQ(h.exit_code, 0);
  ASSERT_EQ(h.series.size(), 3u);
  const SeriesSeen& s = h.series[0];
  EXPECT_EQ(s.format, "deepspeed-chat");
  EXPECT_EQ(s.records, 477);
  EXPECT_EQ(s.run, 1);
  EXPECT_EQ(s.rank, -1);
  EXPECT_EQ(s.engine, -1);
  EXPECT_EQ(s.first_step, 0);
  EXPECT_EQ(s.last_step, 476);
  EXPECT_EQ(s.lines_read, 2104);
  EXPECT_EQ(s.lines_used, 1108);
  EXPECT_EQ(s.skipped_iterations, 14);
  EXPECT_TRUE(s.finding_steps.empty());
  for (int64_t e = 1; e <= 2; ++e) {
    const SeriesSeen& engine = h.series[static_cast<size_t>(e)];
    EXPECT_EQ(engine.format, "deepspeed");
    EXPECT_EQ(engine.engine, e);
    EXPECT_EQ(engine.engines_in_run, 2);
    EXPECT_EQ(engine.run, 1);
    EXPECT_EQ(engine.rank, 0);
    EXPECT_EQ(engine.rank_source, "line");
    EXPECT_EQ(engine.ranks_in_run, 1);
    EXPECT_EQ(engine.records, 47);
    EXPECT_EQ(engine.first_step, 10);
    EXPECT_EQ(engine.last_step, 470);
    EXPECT_EQ(engine.skipped_iterations, 7);
    EXPECT_TRUE(engine.finding_steps.empty());
  }
  EXPECT_EQ(h.verdict,
            "healthy: no findings in 571 record(s) in 3 series (runs x ranks) of 1 log(s)");
}

// MindSpeed-LLM's CI baseline (DeepSeek2 MoE): 20 iterations per metric,
// lm loss 12.61 -> 8.87 falling (8.946 -> 8.964 at step 19 is +0.2%),
// grad norm 11.99 -> 37.72 at step 6 (2.7x the median before it, under
// 100x), time info 81840 ms at iteration 1 (compilation) then 4354-4569
// ms, throughput 6.9 then ~128 TFLOP/s. 4 metrics x 22 lines used; the
// opening brace and "memo info" (8 lines) skipped.
TEST(HealthLogsCorpus, MindSpeedBaselineJson) {
  TS_REQUIRE_CORPUS("logs");
  const HealthSeen h =
      Health(Log(corpus_path,
                 "l_mindspeed_llm_docs_log/"
                 "tests__pipeline__legacy__baseline__deepseek2_tp1_pp1_mcore_moe.json"));
  EXPECT_EQ(h.exit_code, 0);
  ASSERT_EQ(h.series.size(), 1u);
  const SeriesSeen& s = h.series[0];
  EXPECT_EQ(s.records, 20);
  EXPECT_EQ(s.first_step, 1);
  EXPECT_EQ(s.last_step, 20);
  EXPECT_EQ(s.lines_read, 97);
  EXPECT_EQ(s.lines_used, 88);
  EXPECT_TRUE(s.finding_steps.empty());
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
  EXPECT_EQ(h.series[0].rank_source, "line");
  EXPECT_EQ(h.series[0].ranks_in_run, 1);
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
    EXPECT_EQ(h.series[r].ranks_in_run, 8);
    EXPECT_EQ(h.series[r].run, 1);
    EXPECT_EQ(h.series[r].records, (r == 1 || r == 2 || r == 5) ? 2 : 1) << r;
    EXPECT_TRUE(h.series[r].finding_steps.empty());
  }
  EXPECT_EQ(h.verdict.find("healthy"), std::string::npos) << h.verdict;
  EXPECT_EQ(h.verdict.rfind("cannot conclude", 0), 0u) << h.verdict;
}

// The XTuner folder as a directory: its two pages sit side by side and
// their lines name ranks, but both hold a run 1 on rank 0 (the quick start's
// and the SFT page's): not one run's ranks in two files. Each keeps its own
// ranks (1 and 8); 2 + 8 series, 45 records, nothing compared across them.
TEST(HealthLogsCorpus, XTunerPagesOfOneFolderAreNotOneRun) {
  TS_REQUIRE_CORPUS("logs");
  const HealthSeen h = Health(Log(corpus_path, "l_xtuner_docs_log"));
  EXPECT_EQ(h.exit_code, 0);
  ASSERT_EQ(h.series.size(), 10u);
  int64_t records = 0;
  for (size_t i = 0; i < h.series.size(); ++i) {
    const SeriesSeen& s = h.series[i];
    records += s.records;
    EXPECT_EQ(s.rank_source, "line");
    EXPECT_EQ(s.ranks_in_run, i < 2 ? 1 : 8) << i;
    EXPECT_TRUE(s.finding_steps.empty());
  }
  EXPECT_EQ(records, 45);
  EXPECT_EQ(h.verdict.rfind("cannot conclude: no findings in 45 record(s) in 10 series", 0), 0u)
      << h.verdict;
}

}  // namespace
}  // namespace trainscope::testing
