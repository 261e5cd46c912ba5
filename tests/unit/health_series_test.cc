// `trainscope health` on the shapes of real logs (docs/health.md): a file
// cut into runs and ranks, early loss spikes, a diverging loss, an
// explosion before the window fills, silences timed only from clocks, how
// a run ended, and files that are not text. The lines are spelled as the
// frameworks print them (XTuner's quick start, Megatron-LM's training_log,
// torchrun's rank prefix, Slurm's cancellation).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/common/findings_catalog.h"
#include "analysis/health/log_series.h"
#include "analysis/health/training_health.h"
#include "formats/log/training_log_reader.h"

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

}  // namespace
}  // namespace trainscope
