// What a trace's job is: training, inference or unknown, with the evidence
// read from it. Training-only findings (their remedies assume a backward
// pass, an optimizer or FSDP) are withheld for inference.
#pragma once

#include <string>
#include <string_view>

#include "model/rank_profile.h"

namespace trainscope::analysis {

struct Workload {
  std::string kind = "unknown";  // "training", "inference" or "unknown"
  std::string evidence;          // what in the profile says so
};

// Training: autograd backward ops, fwdbwd flows, optimizer steps or
// gradient kernels (Ascend *Grad op types). Inference: none of those, and
// CUDA/HIP graph replays (cudaGraphLaunch, hipGraphLaunch), a serving
// framework's frames (vllm/, sglang/) or a KV cache kept by the forward pass
// (transformers/cache_utils.py, transformers/generation/ frames). Anything
// else: unknown.
Workload DetectWorkload(const model::RankProfile& profile);

// Findings whose remedies hold for training only: the activation peak kept
// for the backward pass, out-of-memory risk (a serving engine reserves its
// KV-cache pool to a set share of memory by design), FSDP prefetch, the
// optimizer and gradient clipping chains.
bool IsTrainingOnlyFinding(std::string_view id);

}  // namespace trainscope::analysis
