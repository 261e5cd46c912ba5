// Element-wise comparison of two tensors (docs/accuracy.md): cosine
// similarity, max absolute and relative error, RMSE, the share of elements
// beyond a tolerance, NaN/Inf counts on each side. One pass over both
// buffers, in blocks converted to double (double accumulators), with a
// branch-free inner loop when the block holds only finite numbers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/status.h"
#include "model/tensor_dump.h"

namespace trainscope::analysis {

// Relative error's denominator floor: |b - a| / max(|a|, kRelativeFloor).
inline constexpr double kRelativeFloor = 1e-6;

struct TensorMetrics {
  int64_t elements = 0;
  int64_t finite_pairs = 0;      // elements finite on both sides (the sums below)
  std::optional<double> cosine;  // n/a when a side is all zeros and the other is not
  double max_abs = 0;
  double max_rel = 0;
  double rmse = 0;
  double base_rms = 0;
  int64_t beyond = 0;  // |b - a| > tolerance
  // Finite pairs whose relative error is below 0.1% and 0.5% (msprobe
  // compare's One / Five Thousandth Err Ratio numerators).
  int64_t rel_below_1e3 = 0, rel_below_5e3 = 0;
  double euclidean = 0;  // sqrt(sum (b - a)^2): msprobe's EucDist
  int64_t nan_base = 0, nan_next = 0, inf_base = 0, inf_next = 0;
  int64_t nonfinite_mismatch = 0;  // positions where the sides disagree on NaN / +Inf / -Inf
};

// Compares |count| elements stored as |a_type| at |a| with those at |b|.
// Little-endian unless the flag says otherwise.
TensorMetrics CompareElements(const void* a, model::ElementType a_type, bool a_big_endian,
                              const void* b, model::ElementType b_type, bool b_big_endian,
                              int64_t count, double tolerance);

// Maps both tensors' files (or uses the inflated bytes) and compares them.
// Fails with the file when a file cannot be mapped or has changed size.
Result<TensorMetrics> CompareTensorData(const model::TensorData& a, const model::TensorData& b,
                                        int64_t count, double tolerance);

// IEEE half and bfloat16 bits to float (exposed for tests).
float HalfToFloat(uint16_t bits);
float Bf16ToFloat(uint16_t bits);

}  // namespace trainscope::analysis
