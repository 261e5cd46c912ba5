// Two runs paired by framework operator and by module class, not by kernel
// name: a GPU run and an NPU run of one model launch different kernels but
// call the same aten:: ops from the same nn.Modules. Each side's
// StepDistribution::framework_ops (analysis/step/framework_ops.h) is paired
// by name; per pair: time on each side, their ratio, kernels per call on each
// side, and the porting finding: an op or module that runs as one kernel per
// call on one side and as several on the other names the fused kernel the
// other side lacks, with the remedy of the fingerprint the other side's
// chain matches (data/fingerprints.tsv).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/motifs/fingerprint_library.h"
#include "analysis/step/kernel_distribution.h"
#include "model/platform.h"

namespace trainscope::analysis {

// One framework op (or module class) on both sides. A side without it has
// calls == 0 (known absent); its per-call numbers are then nullopt.
struct AlignedOp {
  std::string name;
  std::string base_shapes, next_shapes;  // costliest call's input dims, "" unknown
  int64_t base_calls = 0, next_calls = 0;
  int64_t base_kernels = 0, next_kernels = 0;
  int64_t base_ns = 0, next_ns = 0;
  std::string base_top_kernel, next_top_kernel;  // its costliest kernel name on each side
  // The porting finding: "base" or "new" runs it as one kernel per call
  // where the other side runs several; "" when neither.
  std::string fused_side;
  std::string fused_kernel;     // that side's kernel, the one the other side lacks
  std::string unfused_kernels;  // the other side's costliest kernels' op types, up to 4
  std::string fingerprint;      // the fingerprint the other side's chain matches, "" none
  std::string remedy;           // its remedy for the other side's platform, "" none
  bool in_base() const { return base_calls > 0; }
  bool in_next() const { return next_calls > 0; }
  // NEW / BASE time; nullopt unless both sides have it.
  std::optional<double> ratio() const {
    if (base_ns <= 0 || next_ns <= 0) return std::nullopt;
    return static_cast<double>(next_ns) / static_cast<double>(base_ns);
  }
  std::optional<double> base_kernels_per_call() const {
    if (base_calls == 0) return std::nullopt;
    return static_cast<double>(base_kernels) / static_cast<double>(base_calls);
  }
  std::optional<double> next_kernels_per_call() const {
    if (next_calls == 0) return std::nullopt;
    return static_cast<double>(next_kernels) / static_cast<double>(next_calls);
  }
};

struct OpAlignment {
  // By the larger side's time, descending.
  std::vector<AlignedOp> ops;
  std::vector<AlignedOp> modules;  // empty when neither side has nn.Module frames
  // Device time of the compared steps and the part owned by a framework op.
  int64_t base_step_ns = 0, next_step_ns = 0;
  int64_t base_owned_ns = 0, next_owned_ns = 0;
  int64_t base_only = 0, next_only = 0;  // ops on one side only
};

// nullopt (with |why| set) when a side has no framework-op data: no trace
// with launch links from kernels to CPU ops.
std::optional<OpAlignment> AlignOperators(const StepDistribution* base,
                                          model::Platform base_platform,
                                          const StepDistribution* next,
                                          model::Platform next_platform,
                                          const FingerprintLibrary& library, std::string* why);

}  // namespace trainscope::analysis
