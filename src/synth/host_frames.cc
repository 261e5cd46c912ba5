#include "synth/host_frames.h"

#include <array>
#include <utility>

namespace trainscope::synth {

FrameNames NamesOf(FrameKind kind) {
  switch (kind) {
    case FrameKind::kTrainStep:
      return {nullptr, "train.py(88): train_step"};
    case FrameKind::kModelForward:
      return {"Qwen3NextForCausalLM", "modeling_qwen3_next.py(1187): forward"};
    case FrameKind::kEmbedding:
      return {"Embedding", "torch/nn/modules/sparse.py(162): forward"};
    case FrameKind::kDecoderLayer:
      return {"Qwen3NextDecoderLayer", "modeling_qwen3_next.py(893): forward"};
    case FrameKind::kRmsNorm:
      return {"Qwen3NextRMSNorm", "modeling_qwen3_next.py(66): forward"};
    case FrameKind::kAttention:
      return {"Qwen3NextAttention", "modeling_qwen3_next.py(261): forward"};
    case FrameKind::kGatedDeltaNet:
      return {"Qwen3NextGatedDeltaNet", "modeling_qwen3_next.py(616): forward"};
    case FrameKind::kChunkRule:
      return {nullptr, "fla_npu/chunk.py(211): chunk_gated_delta_rule"};
    case FrameKind::kGatedNorm:
      return {"Qwen3NextRMSNormGated", "modeling_qwen3_next.py(84): forward"};
    case FrameKind::kMlp:
      return {"Qwen3NextMLP", "modeling_qwen3_next.py(322): forward"};
    case FrameKind::kLossChunk:
      return {nullptr, "chunked_loss.py(41): chunked_cross_entropy"};
    case FrameKind::kBackward:
      return {nullptr, "torch/_tensor.py(626): backward"};
    case FrameKind::kOptimizer:
      return {nullptr, "torch/optim/adamw.py(204): step"};
  }
  return {nullptr, "train.py(88): train_step"};
}

HostOpNames HostOpsOf(std::string_view kernel_name) {
  std::string_view launch = kernel_name;
  if (launch.starts_with("aclnn")) launch = launch.substr(0, launch.find('_'));
  // The aten/npu op each launch of the catalog belongs to (a short list:
  // a linear scan costs less than the JSON formatting around it).
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 42> kOps = {{
      {"aclnnAdd", "aten::add"},
      {"aclnnAdds", "aten::add"},
      {"aclnnApplyAdamWV2", "npu::npu_apply_adam_w"},
      {"aclnnCast", "npu::npu_dtype_cast"},
      {"aclnnCat", "aten::cat"},
      {"aclnnChunkGatedDeltaRule", "npu::npu_chunk_gated_delta_rule"},
      {"aclnnChunkGatedDeltaRuleGrad", "npu::npu_chunk_gated_delta_rule_backward"},
      {"aclnnConstantPadNd", "aten::constant_pad_nd"},
      {"aclnnContiguous", "aten::contiguous"},
      {"aclnnDiv", "aten::div"},
      {"aclnnEmbedding", "aten::embedding"},
      {"aclnnEmbeddingDenseBackward", "aten::embedding_dense_backward"},
      {"aclnnFlashAttentionScore", "npu::npu_fusion_attention"},
      {"aclnnFlashAttentionScoreGrad", "npu::npu_fusion_attention_grad"},
      {"aclnnFusedLinearCrossEntropyLoss", "npu::npu_fused_linear_cross_entropy"},
      {"aclnnFusedLinearCrossEntropyLossGrad", "npu::npu_fused_linear_cross_entropy_backward"},
      {"aclnnGatedRmsNorm", "npu::npu_gated_rms_norm"},
      {"aclnnGatedRmsNormGrad", "npu::npu_gated_rms_norm_backward"},
      {"aclnnLogSoftmax", "aten::_log_softmax"},
      {"aclnnLogSoftmaxBackward", "aten::_log_softmax_backward_data"},
      {"aclnnMatmul", "aten::mm"},
      {"aclnnMean", "aten::mean"},
      {"aclnnMul", "aten::mul"},
      {"aclnnMuls", "aten::mul"},
      {"aclnnNLLLoss", "aten::nll_loss_forward"},
      {"aclnnNLLLossBackward", "aten::nll_loss_backward"},
      {"aclnnNpuFormatCast", "npu::npu_format_cast"},
      {"aclnnPermute", "aten::permute"},
      {"aclnnPowTensorScalar", "aten::pow"},
      {"aclnnReduceSum", "aten::sum"},
      {"aclnnRmsNorm", "npu::npu_rms_norm"},
      {"aclnnRmsNormGrad", "npu::npu_rms_norm_backward"},
      {"aclnnRsqrt", "aten::rsqrt"},
      {"aclnnSilu", "aten::silu"},
      {"aclnnSiluBackward", "aten::silu_backward"},
      {"aclnnSlice", "aten::slice"},
      {"aclnnSqrt", "aten::sqrt"},
      {"aclnnSub", "aten::sub"},
      {"aclnnSwiGlu", "npu::npu_swiglu"},
      {"aclnnSwiGluGrad", "npu::npu_swiglu_backward"},
      {"RotaryPositionEmbedding", "npu::npu_rotary_mul"},
      {"RotaryPositionEmbeddingGrad", "npu::npu_rotary_mul_backward"},
  }};
  for (const auto& [aclnn, op] : kOps) {
    if (aclnn == launch) return {op, launch};
  }
  return {launch, launch};  // not in the catalog: the launch op stands alone
}

}  // namespace trainscope::synth
