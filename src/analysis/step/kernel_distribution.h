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
#include "analysis/step/framework_ops.h"
#include "analysis/step/host_sync.h"
#include "analysis/step/input_bound.h"
#include "analysis/step/launch_gaps.h"
#include "analysis/step/memory_usage.h"
#include "analysis/step/module_tree.h"
#include "analysis/step/operator_efficiency.h"
#include "analysis/step/step_budget.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

// Kernels are compute and communication work. Memory copies and memsets are
// device events too (families and top operators include them) but not
// kernels: they are counted beside them, and every statistic here (span,
// quantiles, shares, density) is over kernels only.
struct KernelSummary {
  // Whether the rank has a source of device events at all: false when
  // kernel_details.csv is missing and no trace gives device tasks, so the
  // counts and times below are unknown (null / "n/a"), not 0.
  bool known = true;
  int64_t count = 0;  // compute_count + communication_count
  int64_t compute_count = 0;
  int64_t communication_count = 0;
  // Whether the source records copies at all: a trace does;
  // kernel_details.csv lists kernels only, so its memcpy/memset are unknown.
  bool copies_known = false;
  int64_t memcpy_count = 0;
  int64_t memset_count = 0;
  int64_t memcpy_time_ns = 0;         // summed memcpy durations
  int64_t memset_time_ns = 0;         // summed memset durations
  int64_t span_ns = 0;                // first kernel start to last kernel end
  double mean_issue_interval_ns = 0;  // (last start - first start) / (count - 1)
  int64_t total_time_ns = 0;          // sum of kernel durations
  double p50_ns = 0;                  // quantiles interpolate: not whole nanoseconds
  double p90_ns = 0;
  double p99_ns = 0;
  int64_t max_ns = 0;
  double share_le_50us = 0;  // fraction of kernels with duration <= 50 us
  double share_le_100us = 0;

  // Kernels, copies and memsets: what families' and operators' time shares
  // are of.
  int64_t device_time_ns() const { return total_time_ns + memcpy_time_ns + memset_time_ns; }
};

struct FamilyStat {
  std::string name;
  int64_t count = 0;
  int64_t total_ns = 0;
  double share_count = 0;  // of the step's device events (kernels, memcpy, memset)
  double share_time = 0;   // of the step's summed device-event time
};

struct OperatorStat {
  std::string op_type;
  std::string family;
  int64_t count = 0;
  int64_t total_ns = 0;  // the mean is total_ns / count, divided where it is shown
  int64_t max_ns = 0;
  double share_time = 0;  // of the step's summed device-event time
  // The Ascend export has no type for some of these kernels (Level0's "N/A"):
  // |op_type| is derived from their names, a guess (Level1 may type the same
  // kernel ReduceSumD where the name says ReduceSum).
  bool type_derived = false;
};

// The profiler's own per-step accounting (step_trace_time.csv).
using StepTraceSummary = model::StepTraceTimes;

struct StepDistribution {
  int32_t step = model::kNoStep;
  KernelSummary kernels;
  DurationDensity density;
  std::vector<FamilyStat> families;         // every family of the rule table, in table order
  std::vector<OperatorStat> top_operators;  // by total time, descending
  std::optional<StepTraceSummary> step_trace;
  std::optional<StepBudget> breakdown;  // interval-union time budget of the step
  std::vector<Motif> motifs;            // periodic kernel chains (filled by AddFingerprintAnalysis)
  std::optional<HostSyncStats> host_sync;  // host waits for the device (a trace's host ops)
  std::optional<InputBoundStats>
      data_loader;  // device idle behind the data loader (a trace's host ops)
  // Per (operator, shapes, dtypes): achieved FLOP/s and bytes/s; nullopt
  // when no event of the step has input shapes.
  std::optional<OperatorEfficiency> operator_efficiency;
  // Device idle gaps and whether the host's launches left them (a trace with
  // launch links).
  std::optional<LaunchGapStats> launch_gaps;
  // Device memory in the step (memory_record.csv and friends); nullopt
  // when the rank has no memory data.
  std::optional<MemoryUsage> memory;
  // The nn.Module time tree (module_tree.h); nullopt when the profile has
  // no module annotations with launch links.
  std::optional<ModuleTree> module_tree;
  // Device time by launching framework op and module class
  // (framework_ops.h), what `compare` pairs across platforms; nullopt
  // without launch links to framework ops.
  std::optional<FrameworkOps> framework_ops;
  // Why the step's device timeline (the placement of its device events in
  // time) is set aside, "" when it is used: no source of device events
  // agrees with step_trace_time.csv, or the rank's timeline is impossible
  // (plausibility.h). Then the budget is step_trace_time.csv's (or absent),
  // and nothing derived from the timeline is shown as a number: busy span,
  // issue rate, step-start wait, launch gaps, and the gains of the findings
  // that need it.
  std::string timeline_set_aside;
};

struct DistributionOptions {
  size_t top_operators = 15;
};

// |step| == kNoStep means all kernels of the profile. |families| must have
// been built for |profile|.
StepDistribution ComputeStepDistribution(const model::RankProfile& profile, int32_t step,
                                         const KernelFamilies& families,
                                         const DistributionOptions& options = {});

// Sets |step|'s device timeline aside for |why| (which replaces an earlier
// reason): its budget becomes step_trace_time.csv's for the step, with the
// source it replaces named, or none when the file lacks the step.
void SetTimelineAside(const model::RankProfile& profile, const std::string& why,
                      StepDistribution* step);

}  // namespace trainscope::analysis
