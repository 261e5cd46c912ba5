// Macro distribution of the kernels of one step (methodology §2 step 2):
// "don't chase the single slowest kernel" -- look at counts, quantiles,
// small-kernel shares, the log-log density, families and top operators.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/common/family_rules.h"
#include "analysis/common/statistics.h"
#include "analysis/motifs/motifs.h"
#include "analysis/step/step_budget.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

struct KernelSummary {
  int64_t count = 0;
  int64_t compute_count = 0;
  int64_t communication_count = 0;
  double span_us = 0;                 // first kernel start to last kernel end
  double mean_issue_interval_us = 0;  // (last start - first start) / (count - 1)
  double total_time_us = 0;           // sum of kernel durations
  double p50_us = 0;
  double p90_us = 0;
  double p99_us = 0;
  double max_us = 0;
  double share_le_50us = 0;  // fraction of kernels with duration <= 50 us
  double share_le_100us = 0;
};

struct FamilyStat {
  std::string name;
  int64_t count = 0;
  double total_us = 0;
  double share_count = 0;  // of the step's kernel count
  double share_time = 0;   // of the step's summed kernel time
};

struct OperatorStat {
  std::string op_type;
  std::string family;
  int64_t count = 0;
  double total_us = 0;
  double mean_us = 0;
  double max_us = 0;
  double share_time = 0;
};

// The profiler's own per-step accounting (step_trace_time.csv), in us.
struct StepTraceSummary {
  double computing_us = 0;
  double communication_not_overlapped_us = 0;
  double overlapped_us = 0;
  double communication_us = 0;
  double free_us = 0;
  double stage_us = 0;
  double bubble_us = 0;
  std::optional<double> preparing_us;
};

struct StepDistribution {
  int32_t step = model::kNoStep;
  KernelSummary kernels;
  DurationDensity density;
  std::vector<FamilyStat> families;         // every family of the rule table, in table order
  std::vector<OperatorStat> top_operators;  // by total time, descending
  std::optional<StepTraceSummary> step_trace;
  std::optional<StepBudget> breakdown;  // interval-union time budget of the step
  std::vector<Motif> motifs;            // periodic kernel chains (filled by AddFingerprintAnalysis)
};

struct DistributionOptions {
  size_t top_operators = 15;
};

// |step| == kNoStep means all kernels of the profile. |families| must have
// been built for |profile|.
StepDistribution ComputeStepDistribution(const model::RankProfile& profile, int32_t step,
                                         const KernelFamilies& families,
                                         const DistributionOptions& options = {});

}  // namespace trainscope::analysis
