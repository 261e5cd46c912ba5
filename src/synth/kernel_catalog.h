// The realistic kernels an eager LLM training step launches on Ascend.
//
// Every kernel the generator can plant is described once here: its aclnn*
// name and Type as torch_npu prints them, its core, mean duration (already
// scaled to the chosen hidden size and vocabulary), AI Core pipe ratios and
// the pre-escaped shape columns. The schedule refers to kernels by index so
// that millions of planted rows cost a few bytes each.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace trainscope::synth {

struct SynthOptions;

enum class Core : uint8_t { kAiCore, kAiVectorCore, kMixAic, kMixAiv, kCommunication };

const char* CoreName(Core core);

// Fixed synthetic HCCL group hashes; the last 3 digits match the op names
// (hcom_allReduce__612_..., as CANN derives the name suffix from the hash).
// The step-start all-reduce runs in the first group, FSDP's all-gathers and
// reduce-scatters in the second.
inline constexpr std::string_view kHashAllReduce = "5862276093215481612";
inline constexpr std::string_view kHashFsdp = "3985310405473756233";

using SpecId = uint16_t;

struct KernelSpec {
  std::string name;  // comm kernels: the prefix before the per-op counter
  std::string type;
  Core core = Core::kAiVectorCore;
  int block_dim = 40;
  int mix_block_dim = 0;
  double mean_us = 10.0;
  // Pipe ratios in [0, 1]: mac (cube), mte2 (HBM reads), vec (vector unit).
  double mac = 0.0;
  double mte2 = 0.5;
  double vec = 0.3;
  // Shape/type/format columns exactly as they appear in the CSV.
  std::string input_shapes = "N/A";
  std::string input_types = "N/A";
  std::string input_formats = "N/A";
  std::string output_shapes = "N/A";
  std::string output_types = "N/A";
  std::string output_formats = "N/A";
  // Comm kernels of a parallel layout's groups: the decimal HCCL group hash
  // (communication.json keys); empty for the default job's fixed hashes.
  std::string group_hash;
  bool IsComm() const { return core == Core::kCommunication; }
};

using Chain = std::vector<SpecId>;

// The kernel chains of one decoder layer, the loss and the optimizer, each in
// its unfused (eager) and fused variant.
struct Chains {
  Chain rmsnorm_fwd[2], rmsnorm_bwd[2];  // [0] unfused, [1] fused
  Chain gated_norm_fwd[2], gated_norm_bwd[2];
  Chain swiglu_fwd[2], swiglu_bwd[2];
  Chain loss_fwd[2], loss_bwd[2];         // per vocabulary chunk
  Chain glue_fwd_before, glue_fwd_after;  // around the custom op, forward
  Chain glue_bwd_before, glue_bwd_after;
  Chain optimizer_tensor[2];  // per parameter tensor
  SpecId embedding, embedding_grad;
  SpecId mm_qkv, mm_o, mm_gdn_in, mm_gdn_out, mm_gate, mm_up, mm_down, mm_lm_head;
  SpecId mm_qkv_dx, mm_qkv_dw, mm_o_dx, mm_o_dw, mm_gdn_in_dx, mm_gdn_in_dw;
  SpecId mm_gdn_out_dx, mm_gdn_out_dw, mm_gate_dx, mm_gate_dw, mm_up_dx, mm_up_dw;
  SpecId mm_down_dx, mm_down_dw, mm_lm_head_dx, mm_lm_head_dw;
  SpecId slice, rope, rope_grad, flash_attention, flash_attention_grad, concat_grad;
  SpecId custom_op, custom_op_grad;
  SpecId add_residual, add_grad;
  SpecId comm_all_reduce, comm_all_gather, comm_reduce_scatter;
  // Parallel layouts (synth/parallel_layout.h): one comm spec per group, its
  // name carrying the group hash's last three digits as HCCL's does;
  // indexed by the group's index among its kind.
  std::vector<SpecId> comm_tp_all_reduce, comm_p2p, comm_all_to_all, comm_dp_all_reduce;
  // A mixture-of-experts MLP (expert parallelism): router, fused permute,
  // grouped expert matmuls, fused unpermute, and their gradients.
  SpecId mm_router, moe_gating, moe_permute, gmm_up, gmm_down, moe_unpermute;
  SpecId moe_permute_grad, gmm_up_dx, gmm_up_dw, gmm_down_dx, gmm_down_dw, moe_unpermute_grad;
};

class KernelCatalog {
 public:
  explicit KernelCatalog(const SynthOptions& options);

  const KernelSpec& spec(SpecId id) const { return specs_[id]; }
  size_t size() const { return specs_.size(); }
  const Chains& chains() const { return chains_; }

 private:
  SpecId Add(KernelSpec spec);
  class LayerKit;  // one layer's shapes and kernel makers (kernel_catalog.cc)
  void BuildLayer(double h, int hidden);
  void BuildNorms(LayerKit& k);
  void BuildSwiGlu(LayerKit& k);
  void BuildCustomOpGlue(LayerKit& k);
  void BuildLayerMatmuls(LayerKit& k);
  void BuildLayerOps(LayerKit& k);
  void BuildLossAndOptimizer(double h, double v, int hidden, int vocab_chunk);
  void BuildComm(double h);
  void BuildParallel(const SynthOptions& options, double h, int hidden);

  std::vector<KernelSpec> specs_;
  Chains chains_;
};

}  // namespace trainscope::synth
