// `trainscope health` on the shapes of real logs (docs/health.md): a file
// cut into runs and ranks, early loss spikes, a diverging loss, an
// explosion before the window fills, silences timed only from clocks, how
// a run ended, and files that are not text. The lines are spelled as the
// frameworks print them (XTuner's quick start, Megatron-LM's training_log,
// torchrun's rank prefix, Slurm's cancellation).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/common/findings_catalog.h"
#include "analysis/health/log_series.h"
#include "analysis/health/training_health.h"
#include "formats/log/training_log_reader.h"
#include "test_paths.h"

namespace trainscope {
namespace {

using analysis::LogSeries;
using analysis::RunHealth;

std::vector<LogSeries> SeriesOf(const std::string& text) {
  auto read = formats::ReadTrainingLogBytes(text, false, "fixture.log");
  EXPECT_TRUE(read.ok());
  if (!read.ok()) return {};
  EXPECT_EQ(read->ledger.rows_read(), read->ledger.rows_used() + read->ledger.rows_skipped());
  return analysis::SplitLogSeries(std::move(read->log));
}

RunHealth HealthOf(const model::TrainingLog& log) {
  return analysis::AnalyzeTrainingLog(log, analysis::FindingCatalog::Builtin().thresholds());
}

// id -> the step its evidence names ("step", else "last_step").
std::map<std::string, int64_t> StepsOf(const RunHealth& h) {
  std::map<std::string, int64_t> out;
  for (const auto& f : h.findings) {
    int64_t step = -1;
    for (const auto& [k, v] : f.evidence_values) {
      if (k == "step" || (k == "last_step" && step < 0)) step = static_cast<int64_t>(v);
    }
    out[f.id] = step;
  }
  return out;
}

std::string XTunerLine(int rank, int step, int total, double loss, double seconds) {
  return fmt::format(
      "[XTuner][RANK {}][2025-09-08 03:04:{:02d}][INFO] Step {}/{} data_time: 0.0091 lr: 0.000060 "
      "time: {:.4f} text_tokens: 4054.0 total_loss: {:.3f}, reduced_llm_loss: {:.3f} max_memory: "
      "5.36 GB reserved_memory: 7.05 GB grad_norm: 6.000 tgs: 6729.9 e2e_tgs: 6630.0\n",
      rank, step % 60, step, total, seconds, loss, loss);
}

std::string MegatronLine(int64_t iteration, double loss, double grad_norm, int second) {
  return fmt::format(
      " [2024-05-01 10:{:02d}:{:02d}] iteration {:8d}/{:8d} | consumed samples: {:12d} | elapsed "
      "time per iteration (ms): 1000.0 | learning rate: 3.000000E-04 | global batch size:   256 | "
      "lm loss: {:.6E} | loss scale: 1.0 | grad norm: {:.3f} | number of skipped iterations:   0 | "
      "number of nan iterations:   0 |\n",
      (second / 60) % 60, second % 60, iteration, 10000, iteration * 256, loss, grad_norm);
}

TEST(HealthSeriesTest, TwoRunsInOneFileAreJudgedApart) {
  // XTuner's quick start runs 13 steps, then a second job of 109 steps
  // restarts the counter in the same output.
  std::string text;
  for (int s = 1; s <= 13; ++s) text += XTunerLine(0, s, 13, 12.0 - 0.2 * s, 0.05);
  text += "some other output\n";
  for (int s = 1; s <= 20; ++s) text += XTunerLine(0, s, 109, 5.8 - 0.05 * s, 0.33);
  const std::vector<LogSeries> series = SeriesOf(text);
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].run, 1);
  EXPECT_EQ(series[0].log.records.size(), 13u);
  EXPECT_EQ(series[0].rank, 0);
  EXPECT_EQ(series[1].run, 2);
  EXPECT_EQ(series[1].start, "restart");
  EXPECT_EQ(series[1].back_from_step, 13);
  EXPECT_EQ(series[1].log.records.size(), 20u);
  // Judged apart, neither run's steady step time is a trend or a drop.
  for (const LogSeries& s : series) {
    const RunHealth h = HealthOf(s.log);
    EXPECT_EQ(StepsOf(h).count("throughput-drop"), 0u);
    EXPECT_EQ(StepsOf(h).count("step-time-drift"), 0u);
  }
}

TEST(HealthSeriesTest, AResumeGoesBackAndStartsARun) {
  std::string text;
  for (int64_t it = 7100; it <= 7220; it += 10) text += MegatronLine(it, 2.1, 0.9, 0);
  text += " [2024-05-01 11:00:00] loading checkpoint from /ckpt at iteration 6900\n";
  for (int64_t it = 6910; it <= 7000; it += 10) text += MegatronLine(it, 2.12, 0.9, 0);
  const std::vector<LogSeries> series = SeriesOf(text);
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[1].start, "resume");
  EXPECT_EQ(series[1].back_from_step, 7220);
  EXPECT_EQ(series[1].log.records.front().step, 6910);
  EXPECT_FALSE(series[0].rank.has_value());
}

TEST(HealthSeriesTest, InterleavedRanksAreSeriesOfTheirOwn) {
  // XTuner's SFT page: 8 ranks print each step, in any order; torchrun
  // prefixes `[rank3]:`.
  std::string text;
  for (int s = 1; s <= 5; ++s) {
    for (int r : {2, 5, 0, 7, 1, 3, 6, 4}) text += XTunerLine(r, s, 100, 1.7 - 0.01 * s, 4.97);
  }
  for (int s = 1; s <= 4; ++s) {
    for (int r = 0; r < 2; ++r) {
      text += fmt::format(
          "[rank{}]:[titan] 2024-05-01 10:00:{:02d},000 - root - INFO - step: {}  "
          "loss:  7.2510  memory: 30.12GiB(38.05%)  tps: 6,129  tflops: 350.12  "
          "mfu: 35.40%\n",
          r, s, 100 + s);
    }
  }
  const std::vector<LogSeries> series = SeriesOf(text);
  ASSERT_EQ(series.size(), 8u);  // ranks 0-7 (the TorchTitan lines join ranks 0 and 1)
  for (size_t i = 0; i < series.size(); ++i) {
    EXPECT_EQ(series[i].rank, static_cast<int>(i));
    EXPECT_EQ(series[i].run, 1);
    EXPECT_EQ(series[i].log.records.size(), i < 2 ? 9u : 5u) << i;
  }
}

TEST(HealthSeriesTest, EarlySpikeAgainstTheRunningMinimum) {
  // A loss that jumps 3.5x at iteration 3, before ten records exist.
  std::string text = MegatronLine(1, 12.61, 14.1, 0) + MegatronLine(2, 12.44, 13.6, 1) +
                     MegatronLine(3, 44.24, 13.9, 2);
  for (int it = 4; it <= 30; ++it) text += MegatronLine(it, 12.0 - 0.1 * it, 10.0, it);
  const std::vector<LogSeries> series = SeriesOf(text);
  ASSERT_EQ(series.size(), 1u);
  const auto steps = StepsOf(HealthOf(series[0].log));
  ASSERT_EQ(steps.count("early-loss-spike"), 1u);
  EXPECT_EQ(steps.at("early-loss-spike"), 3);
}

TEST(HealthSeriesTest, FallingNoisyStartIsNoSpike) {
  // XTuner's SFT quick start: 5.852 5.776 4.781 5.629 5.303 ... (+18% on
  // the running minimum at step 4, under the 25% bar).
  const double losses[] = {5.852, 5.776, 4.781, 5.629, 5.303, 5.339, 4.532, 4.550, 5.225, 4.614,
                           4.728, 4.677, 5.200, 4.531, 4.229, 4.070, 4.054, 3.505, 3.896, 4.578};
  std::string text;
  int step = 0;
  for (double l : losses) text += XTunerLine(0, ++step, 109, l, 0.33);
  const std::vector<LogSeries> series = SeriesOf(text);
  ASSERT_EQ(series.size(), 1u);
  const auto steps = StepsOf(HealthOf(series[0].log));
  EXPECT_EQ(steps.count("early-loss-spike"), 0u);
  EXPECT_EQ(steps.count("loss-divergence"), 0u);
}

TEST(HealthSeriesTest, RisingLossIsDivergence) {
  // From 11.65 to 20.44 over 30 iterations: every rise is small, the trend
  // is up.
  std::string text;
  for (int it = 1; it <= 30; ++it) {
    text += MegatronLine(it, 11.65 + (20.44 - 11.65) * (it - 1) / 29.0, 1.0, it);
  }
  const auto steps = StepsOf(HealthOf(SeriesOf(text).at(0).log));
  ASSERT_EQ(steps.count("loss-divergence"), 1u);
  EXPECT_EQ(steps.count("loss-spike"), 0u);
  EXPECT_GT(steps.at("loss-divergence"), 1);
  EXPECT_LE(steps.at("loss-divergence"), 30);
}

TEST(HealthSeriesTest, ExplosionRightAfterAResume) {
  std::string text;
  for (int it = 100; it <= 200; it += 10) text += MegatronLine(it, 2.0, 1.0, it / 10);
  // The resume: three records near 1, then 3.27 M.
  text += MegatronLine(60, 2.0, 1.02, 30) + MegatronLine(70, 2.0, 0.97, 31) +
          MegatronLine(80, 2.0, 1.05, 32) + MegatronLine(90, 2.0, 3270000.0, 33);
  const std::vector<LogSeries> series = SeriesOf(text);
  ASSERT_EQ(series.size(), 2u);
  const auto steps = StepsOf(HealthOf(series[1].log));
  ASSERT_EQ(steps.count("grad-explosion"), 1u);
  EXPECT_EQ(steps.at("grad-explosion"), 90);
}

TEST(HealthSeriesTest, NoSilenceAcrossLinesWithoutClocks) {
  // Iteration lines without a timestamp between the only two timestamped
  // lines: the run was printing steps, the 292 s are not a silence.
  std::string text = "2024-05-01 10:00:00 INFO start\n";
  for (int i = 1; i <= 30; ++i) {
    text += fmt::format(
        "{{'loss': {:.3f}, 'grad_norm': 1.0, 'learning_rate': 1e-05, 'epoch': "
        "0.{:02d}}}\n",
        2.5 - 0.01 * i, i);
  }
  text += "2024-05-01 10:04:52 INFO saving model\n";
  const std::vector<LogSeries> series = SeriesOf(text);
  ASSERT_EQ(series.size(), 1u);
  EXPECT_TRUE(series[0].log.largest_gaps.empty());
  EXPECT_EQ(StepsOf(HealthOf(series[0].log)).count("hang"), 0u);
}

TEST(HealthSeriesTest, HowTheRunEnded) {
  std::string text;
  for (int it = 10; it <= 50; it += 10) text += MegatronLine(it, 2.0, 1.0, it);
  text +=
      "slurmstepd: error: *** JOB 4242 ON node17 CANCELLED AT 2024-05-01T12:00:00 DUE TO TIME "
      "LIMIT ***\n";
  text += "Traceback (most recent call last):\n";
  text += "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n";
  text +=
      "W0501 12:00:01 torch/distributed/elastic/multiprocessing/api.py:897] Sending process "
      "4242 closing signal SIGTERM\n";
  const auto steps = StepsOf(HealthOf(SeriesOf(text).at(0).log));
  EXPECT_EQ(steps.at("time-limit"), 50);
  EXPECT_EQ(steps.at("python-traceback"), 50);
  EXPECT_EQ(steps.at("worker-failed"), 50);
  EXPECT_EQ(steps.at("killed-by-signal"), 50);
}

TEST(HealthSeriesTest, BinaryFilesAreNotText) {
  EXPECT_EQ(formats::NotTextReason("step=1 loss=2.0\n"), "");
  EXPECT_NE(formats::NotTextReason(std::string("\x7f"
                                               "ELF\x02\x01\x01\0\0\0",
                                               10))
                .find("ELF"),
            std::string::npos);
  EXPECT_NE(formats::NotTextReason(std::string("\xff\xfes\0t\0e\0p\0", 10)).find("UTF-16"),
            std::string::npos);
  EXPECT_NE(formats::NotTextReason(std::string(4096, '\0')).find("offset 0"), std::string::npos);
  // A gzip stream is binary by nature: it is inflated, not refused.
  EXPECT_EQ(formats::NotTextReason(std::string("\x1f\x8b\x08\0", 4)), "");
  auto read = formats::ReadTrainingLogBytes(std::string("loss=1\0", 7), false, "x.bin");
  ASSERT_TRUE(read.ok());
  EXPECT_FALSE(read->log.not_text.empty());
  EXPECT_TRUE(read->log.records.empty());
}

// DeepSpeed-Chat's RLHF step as DeepSpeed prints it (the corpus log's
// spelling): per PPO step `epoch: 0|step: N|...` and its `|E2E latency=`
// line; every 10 steps the actor engine's `[Rank 0] step=10, skipped=4,
// lr=[...]` (engine.py _report_progress through log_dist), the
// ThroughputTimer's line (timer.py), then the critic engine's line for the
// same step; the fp16 loss scaler's overflow lines.
std::string DeepSpeedChatFixture() {
  std::string text = "***** Running training *****\n";
  const int64_t actor_skipped[] = {4, 5, 7};
  const int64_t critic_skipped[] = {3, 3, 4};
  for (int step = 0; step < 30; ++step) {
    if (step == 0 || step == 21) {
      text +=
          "[2023-04-18 08:48:01,543] [INFO] [loss_scaler.py:181:update_scale] [deepspeed] "
          "OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768\n";
    }
    text += fmt::format(
        "epoch: 0|step: {}|ppo_ep: 1|act_loss: {:.4f}|cri_loss: 0.12|unsuper_loss: 0.0\n", step,
        0.3 - 0.005 * step);
    text += "average reward score: 0.5\n";
    text += "-------------------------------------------------------------------------------\n";
    text += fmt::format(
        "|E2E latency={:.2f}s |Gather latency=0.00s (0.00%) |Generate time=2.49s (65.59%) "
        "|Training time=1.08s (28.42%) |Others=0.23 (6.00%)|CurSamplesPerSec=16.88 "
        "|AvgSamplesPerSec=13.74\n",
        step == 0 ? 7.99 : 3.8);
    if ((step + 1) % 10 != 0) continue;
    const int k = step / 10;
    const int second = 36 + 38 * k;
    const std::string at =
        fmt::format("[2023-04-18 08:{:02d}:{:02d}", 48 + second / 60, second % 60);
    // An overflow of the critic's scaler between the two engines' lines
    // (the fused optimizer's spelling): it belongs with the next PPO step.
    if (k == 1) {
      text += at +
              ",100] [INFO] [fused_optimizer.py:345:step] [deepspeed] fp16 dynamic loss scale "
              "overflow! Skipping step. Attempted loss scale: 8192.0, reducing to 4096.0\n";
    }
    text += fmt::format(
        "{},035] [INFO] [logging.py:96:log_dist] [Rank 0] step={}, skipped={}, lr=[{}, {}], "
        "mom=[(0.9, 0.95), (0.9, 0.95)]\n",
        at, step + 1, actor_skipped[k], 9.65e-8 * (step + 1), 9.65e-8 * (step + 1));
    text += fmt::format(
        "{},058] [INFO] [timer.py:199:stop] epoch=0/micro_step={}/global_step={}, "
        "RunningAvgSamplesPerSec=86.76512302357848, CurrSamplesPerSec=78.87912870644737, "
        "MemAllocated=10.77GB, MaxMemAllocated=20.55GB\n",
        at, step + 1, step + 1);
    text += fmt::format(
        "{},251] [INFO] [logging.py:96:log_dist] [Rank 0] step={}, skipped={}, lr=[{}, {}], "
        "mom=[(0.9, 0.95), (0.9, 0.95)]\n",
        at, step + 1, critic_skipped[k], 5e-8 * (step + 1), 5e-8 * (step + 1));
  }
  return text;
}

// Every record field, the error lines and the silences of a series.
std::string SeriesText(const LogSeries& s) {
  std::string out =
      fmt::format("run {} rank {} engine {} start '{}' format {} errors {} gaps {}", s.run,
                  s.rank.value_or(-9), s.engine.value_or(-9), s.start,
                  static_cast<int>(s.log.format), s.log.errors.size(), s.log.largest_gaps.size());
  for (const int64_t n : s.log.error_counts) out += fmt::format(" {}", n);
  for (const auto& r : s.log.records) {
    out += fmt::format("\n{} {} {} {} {} {} {} {} {}", r.step, r.step_is_ordinal, r.line, r.offset,
                       r.loss.value_or(-1), r.grad_norm.value_or(-1), r.step_time_ms.value_or(-1),
                       r.wall_ns.value_or(-1), r.skipped_iterations.value_or(-1));
  }
  for (const auto& e : s.log.errors) out += fmt::format("\ne {} {}", e.line, e.text);
  for (const auto& g : s.log.largest_gaps) out += fmt::format("\ng {} {}", g.line_before, g.gap_ns);
  return out;
}

TEST(HealthSeriesTest, ALogOfOneSeriesIsThatSeriesAsItIs) {
  // The planted Megatron log (a silence, NaN, error lines) is one series,
  // taken whole; with a line of another rank after it the records are cut
  // into series one by one: its series is the same.
  const std::string text =
      testing::ReadFileBytes(testing::SourceDir() + "/tests/data/logs/megatron_planted.log");
  const std::vector<LogSeries> whole = SeriesOf(text);
  ASSERT_EQ(whole.size(), 1u);
  EXPECT_FALSE(whole[0].log.largest_gaps.empty());
  std::string last_line = text.substr(text.rfind(" [2024"));
  last_line = last_line.substr(0, last_line.find('\n'));
  const std::vector<LogSeries> cut = SeriesOf(text + "[rank7]: " + last_line + "\n");
  ASSERT_EQ(cut.size(), 2u);
  const LogSeries& same = cut[0].rank ? cut[1] : cut[0];
  EXPECT_EQ(SeriesText(whole[0]), SeriesText(same));
  // One rank named on every line, and DeepSpeed engine lines of one engine.
  std::string ranked, engine;
  for (int step = 1; step <= 40; ++step) {
    ranked += fmt::format("[rank3]: iteration {:>8}/ 100 | lm loss: {:.6E} | grad norm: 1.0 |\n",
                          step, 3.0 - step * 0.01);
    engine += fmt::format("[Rank 0] step={}, skipped={}, lr=[1e-05], mom=[(0.9, 0.95)]\n",
                          step * 10, step / 7);
  }
  for (const std::string& one : {ranked, engine}) {
    const std::vector<LogSeries> alone = SeriesOf(one);
    ASSERT_EQ(alone.size(), 1u);
    const std::vector<LogSeries> beside =
        SeriesOf(one + "[rank9]: iteration 5/ 100 | lm loss: 1.0 |\n");
    ASSERT_EQ(beside.size(), 2u);
    const LogSeries& same_again = beside[0].rank == alone[0].rank ? beside[0] : beside[1];
    EXPECT_EQ(SeriesText(alone[0]), SeriesText(same_again));
  }
  EXPECT_EQ(SeriesOf(ranked)[0].rank, 3);
  EXPECT_EQ(SeriesOf(engine)[0].engine, 1);
  EXPECT_EQ(SeriesOf(engine)[0].log.format, model::LogFormat::kDeepSpeed);
}

// Every number a health holds, for comparing two analyses.
std::string HealthText(const RunHealth& h) {
  auto summary = [](const char* name, const analysis::SeriesSummary& s) {
    return fmt::format("\n{} {} {} {} {} {} {} {} {}", name, s.count, s.nonfinite,
                       s.first.value_or(-1), s.last.value_or(-1), s.min.value_or(-1),
                       s.max.value_or(-1), s.median.value_or(-1), s.p90.value_or(-1));
  };
  std::string out = summary("step_ms", h.step_ms) + summary("tps", h.tokens_per_s) +
                    summary("tflops", h.tflops) + summary("mfu", h.mfu_pct) +
                    summary("loss", h.loss) + summary("grad", h.grad_norm);
  out += fmt::format("\n{} {} {} {} {} {} {} {} {} {}", h.step_ms_trend_pct.value_or(-1),
                     h.record_interval_ms.value_or(-1), h.skipped_iterations, h.nan_iterations,
                     h.step_ms_drift_pct.value_or(-1), h.warmup_records,
                     h.warmup_until_step.value_or(-1), h.period_steps.value_or(-1), h.period_spikes,
                     h.step_ms_from_timestamps);
  for (const auto* curve : {&h.curves.loss, &h.curves.grad_norm, &h.curves.step_ms,
                            &h.curves.tokens_per_s, &h.curves.mfu_pct}) {
    out += "\ncurve";
    for (const analysis::CurvePoint& p : *curve) out += fmt::format(" {}:{}", p.step, p.value);
  }
  for (const analysis::Finding& f : h.findings) {
    out += fmt::format("\n{} {} {}", f.id, f.occurrences, f.evidence);
    for (const auto& [key, value] : f.evidence_values) out += fmt::format(" {}={}", key, value);
  }
  return out;
}

TEST(HealthSeriesTest, BothSidesOfABigLogJudgedSideBySideAreJudgedAsOne) {
  // A Megatron log of more records than kSideBySideRecords with an
  // anomaly of every kind both sides find: a loss spike, a grad-norm
  // explosion, NaN, a silence, a slow warm-up, stalls, a rising step time,
  // skipped iterations and an out-of-memory line.
  const int records = static_cast<int>(analysis::kSideBySideRecords) + 20000;
  std::string text;
  int64_t seconds = 0;
  for (int i = 1; i <= records; ++i) {
    double loss = 8.0 / (1.0 + i * 0.0005) + (i % 7) * 0.001;
    double grad = 1.0 + (i % 5) * 0.01;
    double ms = 1000.0 + i * 0.002 + (i % 500 == 0 ? 900 : 0) + (i < 50 ? 2000 : 0);
    if (i == 60000) loss *= 3;
    if (i == 80000) grad *= 500;
    seconds += i == 90000 ? 900 : 1;
    const std::string loss_text = i == 100000 ? "nan" : fmt::format("{:.6E}", loss);
    text += fmt::format(
        " [2024-05-01 {:02}:{:02}:{:02}] iteration {:>8}/ 200000 | elapsed time per iteration "
        "(ms): {:.1f} | lm loss: {} | grad norm: {:.3f} | number of skipped iterations: {:>3} "
        "|\n",
        seconds / 3600 % 24, seconds / 60 % 60, seconds % 60, i, ms, loss_text, grad,
        i % 1000 == 0 ? 1 : 0);
  }
  text += "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB\n";
  auto read = formats::ReadTrainingLogBytes(text, false, "big.log");
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read->log.records.size(), static_cast<size_t>(records));
  const auto& thresholds = analysis::FindingCatalog::Builtin().thresholds();
  const RunHealth one = analysis::AnalyzeTrainingLog(read->log, thresholds, nullptr, 1);
  const RunHealth two = analysis::AnalyzeTrainingLog(read->log, thresholds, nullptr, 2);
  std::set<std::string> ids;
  for (const analysis::Finding& f : one.findings) ids.insert(f.id);
  for (const char* id : {"nan-inf", "loss-spike", "grad-explosion", "hang", "device-oom",
                         "slow-warmup", "step-time-drift"}) {
    EXPECT_TRUE(ids.count(id)) << id << " in " << HealthText(one);
  }
  EXPECT_EQ(HealthText(one), HealthText(two));
}

// The loss-spike and grad-explosion rules by their definition: each
// record's window sorted again (how they were first written; the analysis
// now slides one sorted window and merges the deviations). Random Megatron
// logs with noise, plateaus (equal rises: MAD 0), spikes and explosions.
double QuantileOfSortedWindow(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

struct RuleCount {
  int64_t count = 0;
  double first_value = 0;  // robust_z of the first spike, median of the first explosion
  // The value to a few ulps: the test's arithmetic and the library's are
  // compiled apart, and a compiler may fuse a multiply-add in one and not
  // in the other.
  bool operator==(const RuleCount& other) const {
    return count == other.count && std::fabs(first_value - other.first_value) <=
                                       1e-12 * std::max(1.0, std::fabs(first_value));
  }
};

RuleCount SpikesByDefinition(const std::vector<double>& loss,
                             const analysis::FindingThresholds& t) {
  const size_t window = static_cast<size_t>(std::max(3.0, t.health_window));
  RuleCount out;
  for (size_t i = window + 1; i < loss.size(); ++i) {
    std::vector<double> w;
    for (size_t j = i - window; j < i; ++j) w.push_back(loss[j] - loss[j - 1]);
    std::sort(w.begin(), w.end());
    const double median = QuantileOfSortedWindow(w, 0.5);
    std::vector<double> dev;
    for (const double v : w) dev.push_back(std::fabs(v - median));
    std::sort(dev.begin(), dev.end());
    const double previous = loss[i - 1];
    const double mad =
        std::max(QuantileOfSortedWindow(dev, 0.5), 1e-9 * std::max(1.0, std::fabs(previous)));
    const double z = 0.6745 * ((loss[i] - previous) - median) / mad;
    if (z < t.loss_spike_z || loss[i] - previous < t.loss_spike_min_rise * std::fabs(previous)) {
      continue;
    }
    if (out.count++ == 0) out.first_value = z;
  }
  return out;
}

RuleCount ExplosionsByDefinition(const std::vector<double>& grad,
                                 const analysis::FindingThresholds& t) {
  const size_t window = static_cast<size_t>(std::max(3.0, t.health_window));
  RuleCount out;
  for (size_t i = 3; i < grad.size(); ++i) {
    std::vector<double> w(grad.begin() + static_cast<std::ptrdiff_t>(i > window ? i - window : 0),
                          grad.begin() + static_cast<std::ptrdiff_t>(i));
    std::sort(w.begin(), w.end());
    const double median = QuantileOfSortedWindow(w, 0.5);
    if (median <= 0 || grad[i] < t.grad_explosion_ratio * median) continue;
    if (out.count++ == 0) out.first_value = median;
  }
  return out;
}

RuleCount Reported(const RunHealth& h, const std::string& id, const std::string& count_key,
                   const std::string& value_key) {
  RuleCount out;
  for (const analysis::Finding& f : h.findings) {
    if (f.id != id) continue;
    for (const auto& [k, v] : f.evidence_values) {
      if (k == count_key) out.count = static_cast<int64_t>(v);
      if (k == value_key) out.first_value = v;
    }
  }
  return out;
}

TEST(HealthSeriesTest, SpikesAndExplosionsAreTheirSortedWindowDefinition) {
  const auto& thresholds = analysis::FindingCatalog::Builtin().thresholds();
  uint64_t state = 2024;
  auto next = [&state](uint32_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>((state >> 33) % bound);
  };
  int64_t spikes_seen = 0;
  int64_t explosions_seen = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int records = 30 + static_cast<int>(next(400));
    std::string text;
    std::vector<double> losses;
    std::vector<double> grads;
    double loss = 8;
    for (int i = 1; i <= records; ++i) {
      const uint32_t kind = next(40);
      if (kind == 0) {
        loss *= 1.5 + next(100) / 50.0;  // a spike
      } else if (kind < 8) {
        // a plateau: the loss as it was (equal rises)
      } else {
        loss = std::max(0.5, loss * (0.98 + next(300) / 10000.0));
      }
      const double grad = next(60) == 0 ? 50.0 + next(1000) : 0.5 + next(100) / 100.0;
      const std::string loss_text = fmt::format("{:.6E}", loss);
      const std::string grad_text = fmt::format("{:.3f}", grad);
      losses.push_back(std::stod(loss_text));
      grads.push_back(std::stod(grad_text));
      text += fmt::format(
          " [2024-05-01 00:{:02}:{:02}] iteration {:>8}/ 200000 | elapsed time per iteration "
          "(ms): 1000.0 | lm loss: {} | grad norm: {} | number of skipped iterations:   0 |\n",
          i / 60 % 60, i % 60, i, loss_text, grad_text);
    }
    auto read = formats::ReadTrainingLogBytes(text, false, "random.log");
    ASSERT_TRUE(read.ok());
    ASSERT_EQ(read->log.records.size(), static_cast<size_t>(records));
    const RunHealth h = HealthOf(read->log);
    const RuleCount spikes = SpikesByDefinition(losses, thresholds);
    const RuleCount explosions = ExplosionsByDefinition(grads, thresholds);
    EXPECT_EQ(Reported(h, "loss-spike", "spikes", "robust_z"), spikes) << "trial " << trial;
    EXPECT_EQ(Reported(h, "grad-explosion", "explosions", "median_grad_norm"), explosions)
        << "trial " << trial;
    spikes_seen += spikes.count;
    explosions_seen += explosions.count;
  }
  EXPECT_GT(spikes_seen, 30);  // the rules do fire on these logs
  EXPECT_GT(explosions_seen, 30);
}

TEST(HealthSeriesTest, DeepSpeedEnginesAreSeriesOfTheirOwn) {
  const std::string text = DeepSpeedChatFixture();
  auto read = formats::ReadTrainingLogBytes(text, false, "ds_chat.log");
  ASSERT_TRUE(read.ok());
  // 30 PPO lines + 30 latency lines + 3 overflow lines + 3 x (2 engine
  // lines + 1 timer line) used; the reward and rule lines and the banner
  // skipped.
  EXPECT_EQ(read->ledger.rows_used(), 30 + 30 + 3 + 9);
  EXPECT_EQ(read->ledger.rows_skipped(), 1 + 30 + 30);
  const std::vector<LogSeries> series = analysis::SplitLogSeries(std::move(read->log));
  ASSERT_EQ(series.size(), 3u);
  // The PPO steps: no rank, no engine, their own latencies and overflows
  // (step 0's and step 21's, and the one between the engines' lines at
  // step 20 counted on step 20, the next PPO line).
  const LogSeries& ppo = series[0];
  EXPECT_FALSE(ppo.rank.has_value());
  EXPECT_FALSE(ppo.engine.has_value());
  EXPECT_EQ(ppo.log.format, model::LogFormat::kDeepSpeedChat);
  ASSERT_EQ(ppo.log.records.size(), 30u);
  std::map<int64_t, int64_t> ppo_skips;
  for (const auto& r : ppo.log.records) {
    if (r.skipped_iterations.value_or(0) > 0) ppo_skips[r.step] = *r.skipped_iterations;
    EXPECT_EQ(*r.step_time_ms, r.step == 0 ? 7990.0 : 3800.0) << r.step;
  }
  const std::map<int64_t, int64_t> expected_skips = {{0, 1}, {20, 1}, {21, 1}};
  EXPECT_EQ(ppo_skips, expected_skips);
  // The two engines: steps 10, 20, 30 each; the skipped steps since the
  // engine's previous line (actor 4, 5, 7 running; critic 3, 3, 4); the
  // first parameter group's learning rate.
  const int64_t skipped[2][3] = {{4, 1, 2}, {3, 0, 1}};
  const double lr_per_step[2] = {9.65e-8, 5e-8};
  for (int e = 0; e < 2; ++e) {
    const LogSeries& s = series[1 + e];
    EXPECT_EQ(s.engine, e + 1);
    EXPECT_EQ(s.rank, 0);
    EXPECT_EQ(s.run, 1);
    EXPECT_EQ(s.log.format, model::LogFormat::kDeepSpeed);
    ASSERT_EQ(s.log.records.size(), 3u);
    for (size_t k = 0; k < 3; ++k) {
      const model::TrainingRecord& r = s.log.records[k];
      EXPECT_EQ(r.step, static_cast<int64_t>(10 * (k + 1)));
      EXPECT_EQ(*r.skipped_iterations, skipped[e][k]) << e << " " << k;
      EXPECT_NEAR(*r.learning_rate, lr_per_step[e] * static_cast<double>(r.step), 1e-15);
      EXPECT_FALSE(r.loss.has_value());
    }
    // No step time printed: 38 s between lines 10 steps apart.
    const RunHealth h = HealthOf(s.log);
    EXPECT_TRUE(h.step_ms_from_timestamps);
    EXPECT_DOUBLE_EQ(*h.step_ms.median, 3800.0);
    EXPECT_EQ(h.skipped_iterations, e == 0 ? 7 : 4);
  }
  model::TrainingRecord r;
  model::LogFormat format = model::LogFormat::kUnknown;
  EXPECT_EQ(formats::ParseTrainingLine("[Rank 0] step=70, skipped=6, lr=0.0001, mom=(0.9, 0.95)",
                                       &r, &format),
            RowIssue::kNone);
  EXPECT_EQ(format, model::LogFormat::kDeepSpeed);
  EXPECT_EQ(r.step, 70);
  EXPECT_DOUBLE_EQ(*r.learning_rate, 1e-4);
  EXPECT_EQ(formats::ParseTrainingLine("[Rank 0] step=x, skipped=6, lr=[1e-4]", &r, &format),
            RowIssue::kLogNotTrainingLine);
  EXPECT_EQ(formats::ParseTrainingLine("[Rank 0] step=7, skipped=6, lr=[oops]", &r, &format),
            RowIssue::kLogUnparsableNumber);
  // The generic key=value form keeps lines with a loss.
  EXPECT_EQ(formats::ParseTrainingLine("step=7, skipped=0, lr=0.1, loss=2.5", &r, &format),
            RowIssue::kNone);
  EXPECT_EQ(format, model::LogFormat::kKeyValue);
  EXPECT_DOUBLE_EQ(*r.loss, 2.5);
}

// HF's TrainerState written on one line (sort_keys as HF writes it, no
// indent): the log_history entries are records, NaN as Python writes it.
TEST(HealthSeriesTest, OneLineTrainerStateIsRead) {
  const std::string text =
      R"({"best_metric": null, "epoch": 1.0, "global_step": 20, "log_history": [{"epoch": 0.25, )"
      R"("grad_norm": 33.4, "learning_rate": 1e-05, "loss": 1.285, "step": 5}, {"epoch": 0.5, )"
      R"("grad_norm": 7.0, "learning_rate": 2e-05, "loss": NaN, "step": 10}, {"epoch": 0.5, )"
      R"("eval_loss": 0.5, "eval_runtime": 1.2, "step": 10}, {"epoch": 0.75, "grad_norm": 3.1, )"
      R"("learning_rate": 3e-05, "loss": 0.4, "step": 15}, {"epoch": 1.0, "grad_norm": 2.5, )"
      R"("learning_rate": 4e-05, "loss": 0.38, "step": 20}, {"epoch": 1.0, "step": 20, )"
      R"("total_flos": 1000000000000000.0, "train_loss": 0.6, "train_runtime": 100.0}], )"
      R"("logging_steps": 5, "max_steps": 20, "stateful_callbacks": {"TrainerControl": {"args": )"
      R"({"should_epoch_stop": false}}}, "trial_name": null})";
  auto read = formats::ReadTrainingLogBytes(text, false, "trainer_state.json");
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->ledger.rows_read(), 1);
  EXPECT_EQ(read->ledger.rows_used(), 1);
  const model::TrainingLog& log = read->log;
  EXPECT_EQ(log.format, model::LogFormat::kHfTrainerState);
  ASSERT_EQ(log.records.size(), 4u);
  const int64_t steps[] = {5, 10, 15, 20};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(log.records[i].step, steps[i]);
    EXPECT_EQ(log.records[i].line, 1);
    // The offset is the entry's: its text starts with the entry's '{'.
    EXPECT_EQ(text[static_cast<size_t>(log.records[i].offset)], '{');
  }
  EXPECT_TRUE(std::isnan(*log.records[1].loss));
  EXPECT_DOUBLE_EQ(*log.records[0].grad_norm, 33.4);
  EXPECT_EQ(StepsOf(HealthOf(log)).at("nan-inf"), 10);
  // Cut off inside the list: the entries before the cut are read.
  auto cut = formats::ReadTrainingLogBytes(text.substr(0, text.find("\"step\": 15")), false,
                                           "trainer_state.json");
  ASSERT_TRUE(cut.ok());
  EXPECT_EQ(cut->log.records.size(), 2u);
  EXPECT_EQ(cut->ledger.rows_used(), 1);
}

TEST(HealthSeriesTest, RankFromTheLogsPath) {
  struct RankPathCase {
    const char* path;
    int rank;
    const char* pattern;
  };
  const RankPathCase cases[] = {
      {"logs/rank0.log", 0, "logs/rank*.log"},
      {"logs/rank12.log.gz", 12, "logs/rank*.log.gz"},
      {"run/log_rank_3.txt", 3, "run/log_rank_*.txt"},
      {"job/node1-RANK-7.out", 7, "job/node1-RANK-*.out"},
      {"job/worker-3/train.log", 3, "job/worker-*/train.log"},
      {"rank2/worker_5.log", 5, "rank2/worker_*.log"},  // the file name first
  };
  for (const RankPathCase& c : cases) {
    const std::optional<analysis::PathRank> r = analysis::RankFromLogPath(c.path);
    ASSERT_TRUE(r.has_value()) << c.path;
    EXPECT_EQ(r->rank, c.rank) << c.path;
    EXPECT_EQ(r->pattern, c.pattern) << c.path;
  }
  for (const char* none : {"logs/train.log", "ranks/all.log", "rankings.txt", "rank/0.log"}) {
    EXPECT_FALSE(analysis::RankFromLogPath(none).has_value()) << none;
  }
}

}  // namespace
}  // namespace trainscope
