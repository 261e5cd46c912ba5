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
#include <optional>
#include <string>
#include <vector>

#include "analysis/accuracy/accuracy_thresholds.h"
#include "analysis/accuracy/tensor_metrics.h"
#include "model/tensor_dump.h"

namespace trainscope::analysis {

enum class PairState : uint8_t {
  kCompared,       // elements compared
  kStatistics,     // statistics compared (no elements on one side or both)
  kShapeMismatch,  // same call, different shapes: not compared
  kUnreadable,     // a tensor file failed when mapped (detail says why)
  kNothing,        // neither elements nor statistics on both sides
};
std::string_view PairStateName(PairState state);

struct StatDelta {
  std::optional<double> base, next;
  std::optional<double> rel() const;  // |next - base| / |base|; n/a without both or base 0
};

struct TensorPair {
  std::string name;       // BASE's name
  std::string next_name;  // NEW's (differs in the call counter, say)
  std::string op;         // BASE's call
  std::string module;     // module path, "" when unknown
  std::string role;
  std::string dtype, next_dtype;
  std::vector<int64_t> shape, next_shape;
  int64_t base_order = 0, next_order = 0;
  PairState state = PairState::kNothing;
  std::string detail;  // why not compared, or which limit failed
  std::optional<TensorMetrics> metrics;
  StatDelta max, min, mean, norm;
  bool stats_nonfinite = false;  // a statistic is NaN/Inf on one side only
  AccuracyLimits limits;
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
  int64_t tensors = 0, ops = 0;
  std::vector<RowLedger> ledgers;
};

struct GrowthPoint {
  size_t pair = 0;  // index into pairs
  double error = 0;
  std::optional<double> max_abs;
};

struct AccuracyComparison {
  DumpSide base, next;
  std::vector<TensorPair> pairs;  // BASE's execution order
  std::vector<DifferingSpan> spans;
  int64_t matched_ops = 0, base_only_ops = 0, next_only_ops = 0;
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
};

AccuracyComparison CompareDumps(const model::TensorDump& base, const model::TensorDump& next,
                                const AccuracyThresholds& thresholds,
                                const AccuracyOptions& options);

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
