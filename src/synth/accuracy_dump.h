// Two tensor dumps of a small transformer for `trainscope accuracy` tests
// and demos (docs/synth.md, docs/accuracy.md): embedding, per layer an
// eager RMSNorm, q/k/v linear, causal attention, o_proj, residual, RMSNorm,
// a SwiGLU MLP, residual; a final norm and lm_head. Each side is written as
// an msprobe dump (dump.json with statistics, construct.json, and the
// tensors as .npy in dump_tensor_data/) and as a plain folder of .npy files.
// NEW differs from BASE by one planted change at a known layer and op.
//
// Writes only files; shares no code or constant with the readers or the
// detector's thresholds.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"

namespace trainscope::synth {

enum class AccuracyPlant : uint8_t {
  kNone,          // NEW = BASE
  kBf16Rounding,  // q_proj's output rounded to bfloat16 in layer |plant_layer|
  kWrongEpsilon,  // post_attention_layernorm's epsilon 1e-2 instead of 1e-6
  kNan,           // one NaN in the MLP activation's output
  kFused,         // input_layernorm as one fused npu_rms_norm call in NEW (same numbers)
};

Status ParseAccuracyPlant(const std::string& name, AccuracyPlant* plant);

struct AccuracyDumpOptions {
  AccuracyPlant plant = AccuracyPlant::kNone;
  int plant_layer = 1;
  int layers = 3;
  int seq = 8;
  int hidden = 32;
  int heads = 2;
  int ffn = 64;
  int vocab = 64;
  uint64_t seed = 7;
  bool tensors = true;  // false: msprobe task "statistics" (no .npy files)
};

struct AccuracyDumpResult {
  std::string planted_op;      // NEW's msprobe call name of the planted change ("" for none)
  std::string planted_module;  // its module path
  int64_t tensors = 0;         // per side (BASE)
  int64_t bytes = 0;           // .npy bytes written, both sides
};

// Writes |out|/base, |out|/new (msprobe layout) and |out|/base_npy,
// |out|/new_npy (plain .npy folders, files "NNNN_<name>.npy").
Result<AccuracyDumpResult> WriteAccuracyDumps(const std::string& out,
                                              const AccuracyDumpOptions& options);

// Benchmark input: |files| float32 tensors of |elements| each under
// |out|/base and |out|/new, NEW = BASE plus noise of a few float32 ulps.
Result<int64_t> WriteAccuracyBenchDumps(const std::string& out, int files, int64_t elements,
                                        uint64_t seed);

}  // namespace trainscope::synth
