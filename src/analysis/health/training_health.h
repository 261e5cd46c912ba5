// Training health from a log (docs/health.md): per run the step-time,
// throughput, loss and grad-norm series summarised, and findings as data
// (nan-inf, loss-spike, grad-explosion, hang, throughput-drop, device-oom,
// collective-timeout, segfault), each naming the step. A pure function of
// the model and the thresholds (data/thresholds.tsv).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/common/finding.h"
#include "analysis/common/findings_catalog.h"
#include "model/training_log.h"

namespace trainscope::analysis {

// A series over the records that print it; finite values only (NaN and Inf
// are counted apart: they are the nan-inf finding).
struct SeriesSummary {
  int64_t count = 0;      // finite values
  int64_t nonfinite = 0;  // NaN / Inf values
  std::optional<double> first, last, min, max, median, p90;
};

// What the user says about the model (`--model`, docs/health.md): either a
// parameter count or the shape; unknown fields stay unset.
struct ModelSpec {
  std::optional<double> params;  // N, all parameters (the LM head included)
  std::optional<double> layers, hidden, heads, vocab, seq;
  std::optional<double> batch;            // global batch, sequences per step
  std::optional<double> tokens_per_step;  // global tokens per step (else batch x seq)
  std::optional<double> devices;          // devices the run uses
  std::string device;                     // a device name for the peak table
  std::optional<double> peak_tflops;      // overrides the table: dense BF16 per device
};

// The model's FLOPs against the log's step times (docs/health.md): 6 N per
// token plus the attention 12 L h s (Megatron-LM paper, Narayanan et al.
// 2021, eq. 3; PaLM, Chowdhery et al. 2022, appendix B).
struct ModelThroughput {
  std::optional<double> params;           // N used: given, or 12 L h^2 + V h
  std::optional<double> flops_per_token;  // 6 N (+ 12 L h s)
  bool attention_term = false;            // 12 L h s included
  std::optional<double> tokens_per_step;  // global
  std::optional<double> devices;
  std::optional<double> peak_tflops;        // per device
  std::string peak_source;                  // the table's product, or "--peak-tflops"
  std::optional<double> tgs;                // median tokens/s per device
  std::optional<double> tflops_per_device;  // median achieved model TFLOP/s
  std::optional<double> mfu_pct;            // median
  std::string tgs_source;                   // "model" (tokens/step over step time) or "log"
  std::vector<std::string> missing;         // what kept a number unknown
};

// A downsampled curve for the HTML report: (step, value), finite values.
struct CurvePoint {
  int64_t step = 0;
  double value = 0;
};

struct RunCurves {
  std::vector<CurvePoint> loss, grad_norm, step_ms, tokens_per_s, mfu_pct;
};

// Maximum points per curve: per bucket of records the smallest and the
// largest value are kept, so a spike survives the downsampling.
inline constexpr size_t kCurveMaxPoints = 1200;

struct RunHealth {
  std::string path;
  model::LogFormat format = model::LogFormat::kUnknown;
  // The series of the file this is (docs/health.md, "Runs and ranks"): the
  // run (1-based; a restart or a resume starts the next), how many the file
  // holds, the rank the lines name (unset: none) and the ranks of the run.
  int run = 1;
  int runs_in_file = 1;
  std::optional<int> rank;
  int ranks_in_run = 0;
  // How the rank was told: "line" (the lines' `[RANK n]` / `[rankN]:`
  // prefix), "file name" (one log per rank: `rank3.log`, `worker-3/`); ""
  // without a rank.
  std::string rank_source;
  // The DeepSpeed engine of engine lines (`[Rank 0] step=N, skipped=K, ...`;
  // 1-based, in the order the engines print a step) and the engines of the
  // run and rank; unset / 0 for other series.
  std::optional<int> engine;
  int engines_in_run = 0;
  std::string run_start;                  // "", "restart" or "resume"
  std::optional<int64_t> back_from_step;  // the step before the restart / resume
  int64_t records = 0;
  std::optional<int64_t> first_step, last_step;
  bool steps_ordinal = false;  // the log prints no step: records are numbered
  SeriesSummary step_ms;
  bool step_ms_from_timestamps = false;  // the log prints none: wall time between records / steps
  // Median step time of the last third over the first third, minus 1, in %.
  std::optional<double> step_ms_trend_pct;
  SeriesSummary tokens_per_s, tflops, mfu_pct, loss, grad_norm;
  std::optional<double> record_interval_ms;  // median wall time between consecutive records
  int64_t skipped_iterations = 0;            // summed over the log intervals
  int64_t nan_iterations = 0;
  // Step time over the run after warm-up: Theil-Sen slope through the
  // medians of up to 64 buckets, the fitted rise over the run as % of the
  // median step (unset below 12 records).
  std::optional<double> step_ms_drift_pct;
  int64_t warmup_records = 0;  // leading records slow_warmup_share above the steady state
  std::optional<int64_t> warmup_until_step;
  // Regular stalls (checkpoint / GC): the spacing in steps and the stalls.
  std::optional<int64_t> period_steps;
  int64_t period_spikes = 0;
  std::optional<ModelThroughput> model;  // with --model
  RunCurves curves;
  std::vector<Finding> findings;  // as data: render with RenderFindings
};

// With |threads| >= 2 and at least kSideBySideRecords records, the loss
// and grad-norm side and the step-time side run side by side; the result
// is the same.
inline constexpr size_t kSideBySideRecords = 100000;
RunHealth AnalyzeTrainingLog(const model::TrainingLog& log, const FindingThresholds& t,
                             const ModelSpec* spec = nullptr, unsigned threads = 1);

// The ranks of one run (docs/health.md, "Runs and ranks"): a rank whose
// median step time or loss is rank_outlier_share off the median of the
// ranks' medians gets a rank-outlier finding (as data). Ranks with fewer
// than kRankOutlierMinRecords values of a metric are not compared on it;
// fewer than three ranks are not compared at all.
inline constexpr int64_t kRankOutlierMinRecords = 3;
void FindRankOutliers(const std::vector<RunHealth*>& ranks, const FindingThresholds& t);

// The dense BF16 peak of a device named |device| (analysis/common/device_peaks)
// and the table row's product; nullopt for a device not in the table.
std::optional<std::pair<double, std::string>> DeviceBf16Peak(std::string_view device);

}  // namespace trainscope::analysis
