// `trainscope accuracy`: where two runs' numbers part ways (docs/accuracy.md).
// The calls of two tensor dumps aligned (op_alignment), their tensors paired
// and compared (tensor_metrics, in parallel across pairs), against the
// thresholds of the pair's element type; the first diverging tensor in
// BASE's execution order, the spans of calls only one side made, the error
// along the network and the worst tensors. Also two loss curves and the step
// where they separate.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/accuracy/accuracy_mapping.h"
#include "analysis/accuracy/accuracy_thresholds.h"
#include "analysis/accuracy/tensor_metrics.h"
#include "model/tensor_dump.h"

namespace trainscope::analysis {

enum class PairState : uint8_t {
  kCompared,       // elements compared
  kStatistics,     // statistics compared (no elements on one side or both)
  kShapeMismatch,  // same call, different shapes: a divergence of its own kind
  kDtypeMismatch,  // different element types (other than two float widths): a divergence
  kUnreadable,     // a tensor file failed when mapped (detail says why)
  kNothing,        // neither elements nor statistics on both sides
};
std::string_view PairStateName(PairState state);

struct StatDelta {
  std::optional<double> base, next;
  std::optional<double> rel() const;  // |next - base| / |base|; n/a without both or base 0
};

// One tensor of BASE and its partner in NEW. Names, calls, dtypes and
// shapes are the dumps' own: the pair refers to the two records (the
// comparison holds the dumps), it does not copy them.
struct TensorPair {
  const model::DumpTensor* base_tensor = nullptr;
  const model::DumpTensor* next_tensor = nullptr;
  const std::string& name() const { return base_tensor->name; }  // BASE's name
  const std::string& next_name() const {
    return next_tensor->name;
  }                                                          // NEW's (the call counter may differ)
  const std::string& op() const { return base_tensor->op; }  // BASE's call
  // Module path, "" when unknown (BASE's, else NEW's).
  const std::string& module() const {
    return base_tensor->module.empty() ? next_tensor->module : base_tensor->module;
  }
  const std::string& role() const { return base_tensor->role; }
  const std::string& dtype() const { return base_tensor->dtype; }
  const std::string& next_dtype() const { return next_tensor->dtype; }
  const std::vector<int64_t>& shape() const { return base_tensor->shape; }
  const std::vector<int64_t>& next_shape() const { return next_tensor->shape; }
  int64_t base_order() const { return base_tensor->order; }
  int64_t next_order() const { return next_tensor->order; }
  std::string match_rule;  // how the calls paired: "same name", "call counter", a mapping rule
  PairState state = PairState::kNothing;
  std::string detail;  // why not compared, or which limit failed
  // Elements compared (a tensor dump): shared, so that a statistics pair
  // (none) costs a pointer.
  std::shared_ptr<const TensorMetrics> metrics;
  StatDelta max, min, mean, norm;
  bool stats_nonfinite = false;  // a statistic is NaN/Inf on one side only
  // The limits of the pair's element type (the row's origin is the
  // comparison's limits_used).
  struct Limits {
    double min_cosine = 0;
    double max_abs = 0;
    double stat_rel = 0;
  } limits;
  bool diverged = false;
  // The error for ranking and the growth curve: 1 - cosine for compared
  // elements, the largest relative statistic delta otherwise.
  double error = 0;
};

// A run of calls only one side made, between two calls both made.
struct DifferingSpan {
  std::vector<std::string> base_ops, next_ops;
  std::string module;      // of the first call, when known
  int64_t base_order = 0;  // BASE tensor order where the span sits
  std::string after;       // the last call both made before it ("" at the start)
};

struct DumpSide {
  std::string root, kind, task, level, framework, selected;
  std::vector<std::string> other_ranks;  // rank/proc folders of the step not read
  int64_t tensors = 0, ops = 0;
  std::vector<RowLedger> ledgers;
};

struct GrowthPoint {
  size_t pair = 0;  // index into pairs
  double error = 0;
  std::optional<double> max_abs;
};

// What a verdict stands on: how much of each side was paired and judged.
// "no divergence" needs at least kCoverageFloor of each side's calls paired
// and of its tensors judged (docs/accuracy.md).
inline constexpr double kCoverageFloor = 0.9;

struct Coverage {
  int64_t base_calls = 0, next_calls = 0, paired_calls = 0;
  int64_t base_tensors = 0, next_tensors = 0;
  int64_t paired_tensors = 0;  // tensor pairs formed
  int64_t judged_tensors = 0;  // pairs compared (elements or statistics) or mismatched
  // The smaller side's share: paired calls / that side's calls, judged / tensors.
  double call_share() const;
  double tensor_share() const;
  bool enough() const { return call_share() >= kCoverageFloor && tensor_share() >= kCoverageFloor; }
};

enum class Verdict : uint8_t { kDivergence, kNoDivergence, kCannotConclude };
std::string_view VerdictName(Verdict verdict);  // "divergence", "no divergence", "cannot conclude"

// One rank of a several-rank comparison (both sides in msprobe's rank<N>
// layout): its verdict in a line.
struct RankSummary {
  std::string rank;  // "rank0"
  Verdict verdict = Verdict::kCannotConclude;
  std::string verdict_reason;
  std::string first_call, first_tensor, first_detail;  // "" without a divergence
  int64_t diverged = 0, pairs = 0;
};

struct AccuracyComparison {
  // The two dumps the pairs refer to: held as long as the comparison is.
  std::shared_ptr<const model::TensorDump> base_dump, next_dump;
  DumpSide base, next;
  // Several ranks compared rank by rank: each paired rank's summary, the
  // ranks only one side has; the rest of this comparison is |rank_shown|'s.
  std::vector<RankSummary> ranks;
  std::vector<std::string> base_only_ranks, next_only_ranks;
  std::string rank_shown;
  Coverage coverage;
  Verdict verdict = Verdict::kCannotConclude;
  std::string verdict_reason;     // one line: why this verdict (coverage when it decides)
  std::vector<TensorPair> pairs;  // BASE's execution order
  std::vector<DifferingSpan> spans;
  int64_t matched_ops = 0, base_only_ops = 0, next_only_ops = 0;
  bool cross_framework = false;                // the dumps name different frameworks
  std::map<std::string, int64_t> match_rules;  // matched calls per rule
  int64_t unpaired_base_tensors = 0, unpaired_next_tensors = 0;
  std::optional<size_t> first_divergence;  // index into pairs
  int64_t diverged = 0;
  std::map<std::string, int64_t> states;              // PairStateName -> count
  std::vector<GrowthPoint> growth;                    // outputs in order
  std::vector<size_t> worst;                          // pairs, worst first (diverged or not)
  std::map<std::string, AccuracyLimits> limits_used;  // dtype key -> limits
};

struct AccuracyOptions {
  unsigned threads = 1;
  size_t worst_rows = 10;
  const AccuracyMapping* mapping = nullptr;  // --mapping: applied to NEW's calls
  const ApiNameTable* api_table = nullptr;   // null: ApiNameTable::Builtin()
};

// The comparison keeps |base| and |next|: its pairs refer to their tensors.
AccuracyComparison CompareDumps(std::shared_ptr<const model::TensorDump> base,
                                std::shared_ptr<const model::TensorDump> next,
                                const AccuracyThresholds& thresholds,
                                const AccuracyOptions& options);
// The same over copies of the dumps (tests, small dumps).
AccuracyComparison CompareDumps(const model::TensorDump& base, const model::TensorDump& next,
                                const AccuracyThresholds& thresholds,
                                const AccuracyOptions& options);

RankSummary SummariseRank(const AccuracyComparison& c, std::string rank);

// Two loss curves (step, loss), each in step order.
struct LossPoint {
  int64_t step = 0;
  double loss = 0;
};
struct LossComparison {
  std::string base_label, next_label;
  int64_t base_points = 0, next_points = 0, common_steps = 0;
  double tolerance = 0;
  int64_t sustain = 0;
  std::optional<int64_t> separation_step;  // first step of the first sustained run beyond it
  std::optional<double> separation_rel;
  double max_rel = 0;
  std::optional<int64_t> max_rel_step;
  std::vector<LossPoint> base, next;  // for the chart
};
LossComparison CompareLossCurves(const std::vector<LossPoint>& base,
                                 const std::vector<LossPoint>& next, double tolerance,
                                 int64_t sustain);

}  // namespace trainscope::analysis
