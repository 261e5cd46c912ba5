// Per-operator efficiency of one step (as TraceLens' GEMM
// and roofline sheets): per (operator, input shapes, dtypes), the calls, the
// device time, the FLOPs a matmul's shapes determine and the bytes every
// shaped call moves, hence achieved TFLOP/s, GB/s and arithmetic intensity;
// against the device's datasheet peak where the trace names a known device
// (common/device_peaks), and, for matmuls, against the best large matmul
// shape of the same dtype in the same step (the yardstick), so that a slow
// matmul shape is told apart from a saturated one without a peak table.
//
// Shapes come from kernel_details.csv's "Input Shapes" (Ascend: one row per
// operator call) or, for a trace's kernels, from the nearest host op above
// the kernel's launch that carries record_shapes' "Input Dims" (aten::mm
// above cudaLaunchKernel): one call is then that host op, its time the sum
// of the device time it launched.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/rank_profile.h"

namespace trainscope::analysis {

struct ShapeEfficiency {
  std::string op_type;  // kernel_details "Type", or the launching host op (aten::mm)
  std::string shapes;   // as the profile spells them
  std::string dtypes;
  bool matmul = false;  // its FLOPs are known (a matmul whose shapes determine them)
  int64_t count = 0;    // calls
  int64_t total_ns = 0;
  std::optional<double> flops;  // per call
  std::optional<double> bytes;  // per call: inputs, + the output where known
  bool bytes_include_output = false;
  std::optional<double> peak_tflops;       // the device's dense peak for its type
  std::optional<double> yardstick_tflops;  // matmuls: the best large same-type matmul shape
  std::string yardstick_shapes;            // that shape's op type and shapes

  // nullopt where the numbers behind them are unknown (never 0 for unknown).
  std::optional<double> Tflops() const;
  std::optional<double> Gbps() const;
  std::optional<double> FlopsPerByte() const;
  std::optional<double> PeakPct() const;      // achieved over peak, %
  std::optional<double> RelativePct() const;  // achieved over the yardstick, %
  double MeanNs() const;
};

struct OperatorEfficiency {
  std::string device;       // the device the trace names ("" unknown)
  std::string peak_device;  // the datasheet row it matched ("" none: peaks unknown)
  std::optional<double> peak_gbps;
  int64_t device_ns = 0;              // the step's compute and memset time
  int64_t shaped_ns = 0;              // of it, with input shapes
  int64_t matmul_ns = 0;              // of it, matmuls with known FLOPs
  int64_t shapes = 0;                 // distinct (op, shapes, dtypes) before the cut
  std::vector<ShapeEfficiency> rows;  // by total time, descending
};

struct OperatorEfficiencyOptions {
  // A matmul shape is a yardstick when it takes at least this share of
  // the step's matmul time (data/thresholds.tsv matmul_yardstick_min_share).
  double yardstick_min_share = 0;
  size_t max_matmul_rows = 20;
  size_t max_other_rows = 20;
};

// nullopt when no device event of |step| has input shapes.
std::optional<OperatorEfficiency> ComputeOperatorEfficiency(
    const model::RankProfile& profile, int32_t step, const OperatorEfficiencyOptions& options);

}  // namespace trainscope::analysis
