// Two runs measured with the same yardstick (methodology: apply
// one remedy, re-measure, keep it only if the numbers say so): the analyses
// of BASE and NEW side by side, with absolute and relative deltas, the
// operators and fingerprinted chains that appeared or disappeared, and
// each removed finding's predicted gain beside the measured change.
//
// Input is two JobAnalysis built by the same pipeline with the same rules
// and step rule; the comparison reads them only. Per-rank numbers come from
// each side's compared rank (the lowest rank with device activity unless
// the caller picks one), job-wide numbers (mean step time, cluster) from
// the whole job.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/common/findings_catalog.h"
#include "analysis/compare/op_alignment.h"
#include "analysis/compare/regression_gate.h"
#include "analysis/compare/workload_check.h"
#include "analysis/job/rank_analysis.h"

namespace trainscope::analysis {

// One number on both sides. Unknown on a side is nullopt (never 0).
struct ComparedValue {
  std::string id;     // stable: "step_ms", "kernels", "p50_us", ...
  std::string label;  // for people
  std::string unit;   // "ms", "us", "count", "pct"
  std::optional<double> base;
  std::optional<double> next;  // NEW
  std::optional<double> delta() const {
    if (!base || !next) return std::nullopt;
    return *next - *base;
  }
  // Relative change in percent of BASE; nullopt when BASE is 0 or unknown.
  std::optional<double> delta_pct() const {
    if (!base || !next || *base == 0) return std::nullopt;
    return (*next - *base) / *base * 100.0;
  }
};

// A family or an operator type on both sides (count and time per step of
// the compared rank); a side without it has 0 (it is known to be absent).
struct ComparedGroup {
  std::string name;
  std::string family;  // operators: their family
  int64_t base_count = 0, next_count = 0;
  int64_t base_ns = 0, next_ns = 0;
  int64_t delta_ns() const { return next_ns - base_ns; }
};

// A finding id on both sides. Instances: a fingerprint's chain instances
// per step on its worst rank (forward + backward; its evidence value
// "instances"); unknown for findings that do not count chains, and 0 on a
// side without the finding.
struct ComparedFinding {
  std::string id;
  std::string title;  // BASE's when it has one, else NEW's
  bool in_base = false, in_next = false;
  bool counts_instances = false;
  int64_t base_instances = 0, next_instances = 0;
  int32_t base_ranks = 0, next_ranks = 0;
  double base_gain_pct = 0, next_gain_pct = 0;  // estimated gains, % of each side's step
};

// For a finding of BASE gone in NEW: its predicted gain beside the measured
// step-time change (only the whole change can be measured; when several
// findings went at once, each is set against the same total).
struct PredictionCheck {
  std::string id;
  double predicted_gain_pct = 0;            // BASE's estimate, % of BASE's step
  std::optional<double> measured_gain_pct;  // (base - new) / base step time x 100
  std::optional<double> error_pct;          // measured - predicted (points)
};

struct SideInfo {
  std::vector<std::string> inputs;
  int32_t ranks = 0;
  int32_t compared_rank = -1;  // -1: no rank with device activity
  int32_t step = model::kNoStep;
  std::string step_reason;
  model::Platform platform = model::Platform::kUnknown;
  std::string budget_source;
};

struct RunComparison {
  SideInfo base, next;
  // Step time: the compared rank's, and the job's mean over ranks.
  std::vector<ComparedValue> values;  // in report order
  std::vector<ComparedGroup> families;
  // Operator types of either side, by |delta_ns| descending; appeared /
  // disappeared are those with a zero count on one side.
  std::vector<ComparedGroup> operators;
  std::vector<ComparedFinding> findings;  // ids of either side, BASE's ranking first
  std::vector<PredictionCheck> predictions;
  // Every finding gone in NEW at once, their gains combined as the report's
  // projection does (gain_projection.h), against the measured change.
  std::optional<PredictionCheck> combined_prediction;
  // DurationDensity of both compared steps, same bins when both exist.
  DurationDensity base_density, next_density;
  // The compared steps' timelines, when their pictures were drawn.
  std::optional<StepTimeline> base_timeline, next_timeline;
  // What limits the comparison, shown before the verdict: input damage on
  // a side (rows skipped, rows unaccounted for, ranks that failed to load),
  // no rank in common, different platforms. Empty when nothing does.
  std::vector<std::string> cautions;
  // One-line verdict: faster / slower / about the same, and what changed
  // most; "cannot conclude: ..." when a side's input is damaged or the sides
  // share no rank (the numbers are still shown, no prediction is checked).
  std::string verdict;
  // (new - base) / base x 100 of the step time: the job's mean step when
  // both sides have one (a cluster), else the compared rank's.
  std::optional<double> step_change_pct;
  // Whether BASE and NEW are one workload, decided before anything else
  // (workload_check.h). When they differ the verdict says so first, and no
  // step-time change or prediction is claimed (step_change_pct is null).
  WorkloadCheck workload;
  // The regression gate (regression_gate.h), when --gate asked for it.
  std::optional<GateResult> gate;
  // The compared steps paired by framework op and module class
  // (op_alignment.h); nullopt with the reason in op_alignment_missing.
  std::optional<OpAlignment> op_alignment;
  std::string op_alignment_missing;
};

struct CompareOptions {
  std::optional<int32_t> rank;  // the rank to compare on both sides
  // The verdict's text (entry _compare-verdict of data/findings.tsv) and its
  // noise band (compare_same_pct: a step-time change below it is "about the
  // same"); null: FindingCatalog::Builtin().
  const FindingCatalog* catalog = nullptr;
  // The remedies the op alignment names (--fingerprints merged with the
  // built-in); null: FingerprintLibrary::Builtin().
  const FingerprintLibrary* fingerprints = nullptr;
};

// Fails (kNotFound) when |options.rank| is absent on a side.
Result<RunComparison> CompareRuns(const JobAnalysis& base, const JobAnalysis& next,
                                  const CompareOptions& options);

}  // namespace trainscope::analysis
