// Training health from a log (docs/health.md): per run the step-time,
// throughput, loss and grad-norm series summarised, and findings as data
// (nan-inf, loss-spike, grad-explosion, hang, throughput-drop, device-oom,
// collective-timeout, segfault), each naming the step. A pure function of
// the model and the thresholds (data/thresholds.tsv).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
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

struct RunHealth {
  std::string path;
  model::LogFormat format = model::LogFormat::kUnknown;
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
  std::vector<Finding> findings;  // as data: render with RenderFindings
};

RunHealth AnalyzeTrainingLog(const model::TrainingLog& log, const FindingThresholds& t);

}  // namespace trainscope::analysis
