// The host program behind the planted kernels, as trace_view.json shows it:
// the Python frames (with_stack) a training step runs through and the
// framework op (aten::* / npu::*) and launch op (aclnn*) of each kernel.
//
// Names follow torch's Python tracer: a module call is "nn.Module: <Class>_<n>"
// (n counts the instances of the class in first-call order) around its
// "<file>(<line of def>): <function>" frame. The model is a Qwen3-Next-like
// hybrid (softmax attention + gated delta net) in modeling_qwen3_next.py.
#pragma once

#include <cstdint>
#include <string_view>

namespace trainscope::synth {

enum class FrameKind : uint8_t {
  kTrainStep,      // train.py: the whole step
  kModelForward,   // Qwen3NextForCausalLM.forward, per micro-batch
  kEmbedding,      // nn.Embedding
  kDecoderLayer,   // Qwen3NextDecoderLayer.forward
  kRmsNorm,        // Qwen3NextRMSNorm.forward: the unfused-rmsnorm chain
  kAttention,      // Qwen3NextAttention.forward
  kGatedDeltaNet,  // Qwen3NextGatedDeltaNet.forward
  kChunkRule,      // the custom-op wrapper: glue-around-custom-op
  kGatedNorm,      // Qwen3NextRMSNormGated.forward: unfused-gated-norm
  kMlp,            // Qwen3NextMLP.forward: unfused-swiglu
  kLossChunk,      // the chunked loss, per vocabulary chunk: unfused-cross-entropy
  kBackward,       // torch/_tensor.py backward: its kernels run on the autograd thread
  kOptimizer,      // torch/optim/adamw.py step
};

struct FrameNames {
  const char* module;    // nn.Module class, nullptr: a plain function frame
  const char* function;  // "modeling_qwen3_next.py(66): forward"
};

FrameNames NamesOf(FrameKind kind);

// The framework op that launches a kernel (e.g. "aten::mul") and the launch
// op under it (e.g. "aclnnMul"), from the kernel name as CANN writes it
// ("aclnnMul_MulAiCore_Mul"; kernels without the aclnn prefix launch under
// their own name; a kernel outside the catalog is its own framework op).
struct HostOpNames {
  std::string_view framework;
  std::string_view launch;
};
HostOpNames HostOpsOf(std::string_view kernel_name);

}  // namespace trainscope::synth
