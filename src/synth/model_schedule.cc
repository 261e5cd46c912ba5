#include "synth/model_schedule.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "synth/synth.h"

namespace trainscope::synth {
namespace {

constexpr uint64_t kNoKey = ~uint64_t{0};
constexpr uint64_t kWorldKey = 0, kTensorKey = 1, kPipelineKey = 2, kExpertKey = 3, kDataKey = 4;

class StepBuilder {
 public:
  StepBuilder(const KernelCatalog& catalog, const SynthOptions& options, const ScheduleShape& shape,
              RankState* state, StepPlan* plan, const StepCoupling& coupling, const RankRole& role)
      : catalog_(catalog),
        coupling_(coupling),
        role_(role),
        chains_(catalog.chains()),
        options_(options),
        shape_(shape),
        state_(*state),
        rng_(state->rng),
        plan_(*plan),
        tick_ns_(TickNs(options)) {}

  void Run(int64_t arrival_ns, int64_t barrier_end_ns) {
    plan_.compute.clear();
    plan_.comm.clear();
    plan_.comm_own_end.clear();
    plan_.comm_key.clear();
    plan_.frames.clear();
    plan_.counts = PatternCounts();
    // The step-start all-reduce: this rank enters it on arrival and leaves it
    // when the slowest rank has arrived and the transfer is done.
    plan_.comm.push_back({arrival_ns, barrier_end_ns - arrival_ns, state_.all_reduce_seq++,
                          chains_.comm_all_reduce});
    plan_.comm_own_end.push_back(barrier_end_ns);
    plan_.comm_key.push_back(CommKey(kWorldKey, 0, world_ops_++));
    comm_end_ = barrier_end_ns;
    compute_end_ = barrier_end_ns;
    ready_ = barrier_end_ns;

    const size_t step_frame = Enter(FrameKind::kTrainStep);
    if (role_.stages > 1) {
      // GPipe: every micro-batch forward through the stages, then every one
      // backward; the fill and the drain are the pipeline's bubble.
      for (int mb = 0; mb < shape_.micro_batches; ++mb) ForwardPass(mb);
      for (int mb = 0; mb < shape_.micro_batches; ++mb) BackwardPass(mb);
    } else {
      for (int mb = 0; mb < shape_.micro_batches; ++mb) {
        ForwardPass(mb);
        BackwardPass(mb);
      }
    }
    // Gradients must be reduced before the optimizer touches them.
    ready_ = comm_end_;
    const int tensors = StageLayers() * shape_.optimizer_tensors_per_layer + 2;
    const Chain& opt = chains_.optimizer_tensor[options_.fused_optimizer ? 1 : 0];
    const size_t optimizer = Enter(FrameKind::kOptimizer);
    for (int t = 0; t < tensors; ++t) Run(opt);
    Exit(optimizer);
    Exit(step_frame);
    plan_.end_ns = std::max(compute_end_, comm_end_);
  }

 private:
  int64_t ToTicks(double ns) const { return UsToTicks(ns / 1000.0, tick_ns_); }

  // Host frames only record kernel indices: no PRNG draw, so the kernels
  // are the same with and without them.
  size_t Enter(FrameKind kind, int instance = 0) {
    const auto at = static_cast<uint32_t>(plan_.compute.size());
    plan_.frames.push_back({at, at, kind, static_cast<uint32_t>(instance)});
    return plan_.frames.size() - 1;
  }
  void Exit(size_t frame) { plan_.frames[frame].end = static_cast<uint32_t>(plan_.compute.size()); }

  int64_t DrawDuration(SpecId id) {
    double us = catalog_.spec(id).mean_us * (0.92 + 0.16 * rng_.Uniform());
    // Occasional contention (HBM, preemption by a collective) stretches a kernel.
    if (rng_.Chance(0.015)) us *= rng_.Uniform(1.3, 2.0);
    return ToTicks(us * 1000.0);
  }

  // Host dispatch gap between consecutive kernels: mostly a few us, with a
  // tail from Python and allocator work. This is where "Free" comes from.
  int64_t DrawGap() {
    const double u = rng_.Uniform();
    double us;
    if (u < 0.78) {
      us = rng_.Uniform(1.5, 6.0);
    } else if (u < 0.97) {
      us = rng_.Uniform(6.0, 30.0);
    } else {
      us = rng_.Uniform(30.0, 150.0);
    }
    return ToTicks(us * 1000.0);
  }

  // The planted slow operator (SynthOptions::slow_op), of the planted shapes
  // when they are named.
  bool IsSlowOp(const KernelSpec& spec) const {
    if (options_.slow_op.empty() || spec.type != options_.slow_op) return false;
    if (options_.slow_op_shapes.empty()) return true;
    // The cell as written, in doubled CSV quotes.
    std::string_view shapes = spec.input_shapes;
    while (shapes.size() >= 2 && shapes.front() == '"' && shapes.back() == '"')
      shapes = shapes.substr(1, shapes.size() - 2);
    return shapes == options_.slow_op_shapes;
  }

  void Kernel(SpecId id) {
    int64_t start = compute_end_ + DrawGap();
    if (ready_ > compute_end_) start = std::max(start, ready_ + ToTicks(rng_.Uniform(1500, 4000)));
    if (coupling_.dispatch_ns > 0 && !plan_.compute.empty())
      start = std::max(start, plan_.compute.back().start_ns + ToTicks(coupling_.dispatch_ns));
    int64_t dur = DrawDuration(id);
    // Tensor parallelism splits matmuls and attention heads across ranks.
    const Core core = catalog_.spec(id).core;
    if (role_.tp > 1 && (core == Core::kAiCore || core == Core::kMixAic)) {
      dur = ToTicks(static_cast<double>(dur) / role_.tp);
    }
    if (coupling_.compute_slowdown != 1.0) {
      dur = ToTicks(static_cast<double>(dur) * coupling_.compute_slowdown);
    }
    // Planted regressions (SynthOptions::slowdown, slow_op).
    double planted = options_.slowdown;
    if (IsSlowOp(catalog_.spec(id))) planted *= options_.slow_op_factor;
    if (planted != 1.0) dur = ToTicks(static_cast<double>(dur) * planted);
    plan_.compute.push_back({start, dur, 0, id});
    compute_end_ = start + dur;
  }

  void Run(const Chain& chain) {
    for (SpecId id : chain) Kernel(id);
  }

  // Enqueues a collective on the communication stream; returns its end.
  // |key|: its identity across ranks (CommKey); by default the next op of
  // the world group.
  int64_t Comm(SpecId id, int64_t issue_ns, uint32_t* seq, uint64_t key = kNoKey) {
    const int64_t start = std::max(comm_end_ + ToTicks(rng_.Uniform(800, 3000)),
                                   issue_ns + ToTicks(rng_.Uniform(2000, 6000)));
    int64_t own = DrawDuration(id);
    if (key == kNoKey && coupling_.world_comm_slowdown != 1.0)
      own = ToTicks(static_cast<double>(own) * coupling_.world_comm_slowdown);
    // A collective ends when the last rank has done its part (the floor).
    const size_t k = plan_.comm.size();
    int64_t end = start + own;
    if (k < coupling_.floors.size()) end = std::max(end, coupling_.floors[k]);
    plan_.comm.push_back({start, end - start, (*seq)++, id});
    plan_.comm_own_end.push_back(start + own);
    plan_.comm_key.push_back(key == kNoKey ? CommKey(kWorldKey, 0, world_ops_++) : key);
    comm_end_ = end;
    return comm_end_;
  }

  int64_t AllGather(int64_t issue_ns) {
    return Comm(chains_.comm_all_gather, issue_ns, &state_.all_gather_seq);
  }

  // Tensor parallelism: the partial sums of a row-parallel matmul are
  // all-reduced before the next op can use them.
  void TensorAllReduce() {
    if (role_.tp <= 1) return;
    ready_ = Comm(role_.tp_all_reduce, compute_end_, &state_.layout_seq,
                  CommKey(kTensorKey, role_.tp_group, tp_ops_++));
  }

  // Expert parallelism: tokens to their experts' ranks and back.
  void AllToAll() {
    ready_ = Comm(role_.all_to_all, compute_end_, &state_.layout_seq,
                  CommKey(kExpertKey, role_.ep_group, ep_ops_++));
  }

  // Pipeline parallelism: activations (forward) or gradients (backward) of
  // micro-batch |mb| across the boundary between stages |boundary| and
  // |boundary| + 1. The receiving side's compute waits for them.
  void PipelineTransfer(bool backward, int boundary, int mb, bool receive) {
    const uint64_t local = (uint64_t{backward} << 40) | (static_cast<uint64_t>(boundary) << 20) |
                           static_cast<uint64_t>(mb);
    const int64_t end = Comm(role_.p2p, compute_end_, &state_.layout_seq,
                             CommKey(kPipelineKey, role_.pp_group, local));
    if (receive) ready_ = end;
  }

  int StageLayers() const { return shape_.layers / role_.stages; }
  bool FirstStage() const { return role_.stage == 0; }
  bool LastStage() const { return role_.stage == role_.stages - 1; }

  // FSDP unshard of unit |k| (forward layers, then backward layers).
  void Unshard(int k, int units) {
    if (!options_.unshard_on_compute_stream) {
      // Issued on its own stream only when the layer is reached: the next
      // compute kernel waits for it, the compute stream idles meanwhile.
      ready_ = AllGather(compute_end_);
      ++plan_.counts.pseudo_overlap;
      return;
    }
    // Issued one unit ahead, so it runs behind the previous layer's compute.
    if (prefetched_end_ < 0) prefetched_end_ = AllGather(compute_end_);
    ready_ = prefetched_end_;
    prefetched_end_ = k + 1 < units ? AllGather(compute_end_) : -1;
  }

  // |instance|: the RMSNorm module's number in first-call order (forward only;
  // backward runs on the autograd thread, outside any Python frame).
  void Norm(bool backward, int instance = 0) {
    const int f = options_.fused_rmsnorm ? 1 : 0;
    if (backward) {
      Run(chains_.rmsnorm_bwd[f]);
      if (!f) ++plan_.counts.rmsnorm_bwd;
      return;
    }
    const size_t frame = Enter(FrameKind::kRmsNorm, instance);
    Run(chains_.rmsnorm_fwd[f]);
    Exit(frame);
    if (!f) ++plan_.counts.rmsnorm_fwd;
  }

  void ForwardLayer(int layer) {
    const Chains& c = chains_;
    const bool glue = !options_.native_custom_op;
    const size_t decoder = Enter(FrameKind::kDecoderLayer, layer);
    Norm(false, 2 * layer);
    const size_t attention = Enter(FrameKind::kAttention, layer);
    Kernel(c.mm_qkv);
    Kernel(c.slice);
    Kernel(c.slice);
    Kernel(c.rope);
    Kernel(c.rope);
    Kernel(c.flash_attention);
    Kernel(c.mm_o);
    TensorAllReduce();
    Exit(attention);
    Kernel(c.add_residual);
    const size_t gdn = Enter(FrameKind::kGatedDeltaNet, layer);
    Kernel(c.mm_gdn_in);
    const size_t chunk_rule = Enter(FrameKind::kChunkRule);
    if (glue) Run(c.glue_fwd_before);
    Kernel(c.custom_op);
    if (glue) {
      Run(c.glue_fwd_after);
      ++plan_.counts.glue_fwd;
    }
    Exit(chunk_rule);
    const size_t gated_norm = Enter(FrameKind::kGatedNorm, layer);
    Run(c.gated_norm_fwd[options_.fused_gated_norm ? 1 : 0]);
    Exit(gated_norm);
    if (!options_.fused_gated_norm) ++plan_.counts.gated_norm_fwd;
    Kernel(c.mm_gdn_out);
    Exit(gdn);
    Kernel(c.add_residual);
    Norm(false, 2 * layer + 1);
    const size_t mlp = Enter(FrameKind::kMlp, layer);
    if (role_.moe) {
      MoeForward();
    } else {
      Kernel(c.mm_gate);
      Kernel(c.mm_up);
      Run(c.swiglu_fwd[options_.fused_swiglu ? 1 : 0]);
      if (!options_.fused_swiglu) ++plan_.counts.swiglu_fwd;
      Kernel(c.mm_down);
      TensorAllReduce();
    }
    Exit(mlp);
    Kernel(c.add_residual);
    Exit(decoder);
  }

  // The MoE MLP: route, permute, dispatch, the experts' grouped matmuls,
  // combine, unpermute.
  void MoeForward() {
    const Chains& c = chains_;
    Kernel(c.mm_router);
    Kernel(c.moe_gating);
    Kernel(c.moe_permute);
    AllToAll();
    Kernel(c.gmm_up);
    Run(c.swiglu_fwd[options_.fused_swiglu ? 1 : 0]);
    if (!options_.fused_swiglu) ++plan_.counts.swiglu_fwd;
    Kernel(c.gmm_down);
    AllToAll();
    Kernel(c.moe_unpermute);
  }

  void MoeBackward() {
    const Chains& c = chains_;
    Kernel(c.moe_unpermute_grad);
    AllToAll();
    Kernel(c.gmm_down_dx);
    Kernel(c.gmm_down_dw);
    Run(c.swiglu_bwd[options_.fused_swiglu ? 1 : 0]);
    if (!options_.fused_swiglu) ++plan_.counts.swiglu_bwd;
    Kernel(c.gmm_up_dx);
    Kernel(c.gmm_up_dw);
    AllToAll();
    Kernel(c.moe_permute_grad);
  }

  void BackwardLayer() {
    const Chains& c = chains_;
    const bool glue = !options_.native_custom_op;
    if (role_.moe) {
      MoeBackward();
    } else {
      Kernel(c.mm_down_dx);
      Kernel(c.mm_down_dw);
      Run(c.swiglu_bwd[options_.fused_swiglu ? 1 : 0]);
      if (!options_.fused_swiglu) ++plan_.counts.swiglu_bwd;
      Kernel(c.mm_gate_dx);
      Kernel(c.mm_gate_dw);
      Kernel(c.mm_up_dx);
      Kernel(c.mm_up_dw);
      TensorAllReduce();
    }
    Kernel(c.add_grad);
    Norm(true);
    Kernel(c.add_grad);
    Kernel(c.mm_gdn_out_dx);
    Kernel(c.mm_gdn_out_dw);
    Run(c.gated_norm_bwd[options_.fused_gated_norm ? 1 : 0]);
    if (!options_.fused_gated_norm) ++plan_.counts.gated_norm_bwd;
    if (glue) Run(c.glue_bwd_before);
    Kernel(c.custom_op_grad);
    if (glue) {
      Run(c.glue_bwd_after);
      ++plan_.counts.glue_bwd;
    }
    Kernel(c.mm_gdn_in_dx);
    Kernel(c.mm_gdn_in_dw);
    Kernel(c.add_grad);
    Kernel(c.mm_o_dx);
    Kernel(c.mm_o_dw);
    Kernel(c.flash_attention_grad);
    Kernel(c.rope_grad);
    Kernel(c.rope_grad);
    Kernel(c.concat_grad);
    Kernel(c.mm_qkv_dx);
    Kernel(c.mm_qkv_dw);
    TensorAllReduce();
    Norm(true);
    Kernel(c.add_grad);
  }

  void LossForward() {
    const Chains& c = chains_;
    const bool fused = options_.fused_cross_entropy;
    for (int chunk = 0; chunk < shape_.loss_chunks; ++chunk) {
      const size_t frame = Enter(FrameKind::kLossChunk);
      if (!fused) {
        Kernel(c.mm_lm_head);
        ++plan_.counts.cross_entropy_fwd;
      }
      Run(c.loss_fwd[fused ? 1 : 0]);
      Exit(frame);
    }
  }

  void LossBackward() {
    const Chains& c = chains_;
    const bool fused = options_.fused_cross_entropy;
    for (int chunk = 0; chunk < shape_.loss_chunks; ++chunk) {
      Run(c.loss_bwd[fused ? 1 : 0]);
      if (!fused) {
        Kernel(c.mm_lm_head_dx);
        Kernel(c.mm_lm_head_dw);
        ++plan_.counts.cross_entropy_bwd;
      }
    }
  }

  // One micro-batch forward through this rank's stage: receive the
  // activations from the previous stage, run the layers, send them on.
  void ForwardPass(int mb) {
    const int units = 2 * shape_.layers;
    const int first = role_.stage * StageLayers();
    prefetched_end_ = -1;
    if (!FirstStage()) PipelineTransfer(false, role_.stage - 1, mb, true);
    const size_t model = Enter(FrameKind::kModelForward);
    if (FirstStage()) {
      const size_t embedding = Enter(FrameKind::kEmbedding);
      Kernel(chains_.embedding);
      Exit(embedding);
    }
    for (int l = first; l < first + StageLayers(); ++l) {
      if (role_.fsdp) Unshard(l, units);
      ForwardLayer(l);
    }
    if (LastStage()) {
      Norm(false, 2 * shape_.layers);
      LossForward();  // inside the model's forward, as Hugging Face models compute it
    }
    Exit(model);
    if (!LastStage()) PipelineTransfer(false, role_.stage, mb, false);
  }

  // One micro-batch backward: receive the gradients from the next stage,
  // run the layers in reverse, send the gradients back. Data-parallel
  // gradients are reduced per layer (one bucket each) in the last
  // micro-batch, behind the next layer's backward (FSDP reduce-scatters
  // every micro-batch, as it keeps no unsharded gradients).
  void BackwardPass(int mb) {
    const int units = 2 * shape_.layers;
    const bool last_micro_batch = mb + 1 == shape_.micro_batches;
    if (!LastStage()) PipelineTransfer(true, role_.stage, mb, true);
    const size_t backward = Enter(FrameKind::kBackward);
    if (LastStage()) {
      LossBackward();
      Norm(true);
    }
    for (int l = 0; l < StageLayers(); ++l) {
      if (role_.fsdp) Unshard(shape_.layers + l, units);
      BackwardLayer();
      if (role_.fsdp) {
        Comm(chains_.comm_reduce_scatter, compute_end_, &state_.reduce_scatter_seq);
      } else if (role_.has_dp_all_reduce && last_micro_batch) {
        Comm(role_.dp_all_reduce, compute_end_, &state_.layout_seq,
             CommKey(kDataKey, role_.dp_group, dp_ops_++));
      }
    }
    if (FirstStage()) Kernel(chains_.embedding_grad);
    Exit(backward);
    if (!FirstStage()) PipelineTransfer(true, role_.stage - 1, mb, false);
  }

  const KernelCatalog& catalog_;
  const StepCoupling& coupling_;
  const RankRole& role_;
  const Chains& chains_;
  const SynthOptions& options_;
  const ScheduleShape& shape_;
  RankState& state_;
  Rng& rng_;
  StepPlan& plan_;
  const int64_t tick_ns_;
  int64_t compute_end_ = 0;
  int64_t comm_end_ = 0;
  int64_t ready_ = 0;            // compute may not start before this (a dependency)
  int64_t prefetched_end_ = -1;  // end of the all-gather issued one unit ahead
  // Per group kind, the ops issued so far this step (their CommKey numbers).
  uint64_t world_ops_ = 0, tp_ops_ = 0, ep_ops_ = 0, dp_ops_ = 0;
};

}  // namespace

uint64_t CommKey(uint64_t kind, uint64_t group, uint64_t local) {
  return (kind << 60) ^ (group << 44) ^ local;
}

int64_t TickNs(const SynthOptions& options) {
  return options.header == HeaderVariant::kLegacy2023 ? 100 : 20;
}

int64_t UsToTicks(double us, int64_t tick_ns) {
  const int64_t ticks = std::llround(us * 1000.0 / static_cast<double>(tick_ns));
  return std::max<int64_t>(1, ticks) * tick_ns;
}

void BuildStep(const KernelCatalog& catalog, const SynthOptions& options,
               const ScheduleShape& shape, int64_t arrival_ns, int64_t barrier_end_ns,
               RankState* state, StepPlan* plan, const StepCoupling& coupling,
               const RankRole& role) {
  StepBuilder builder(catalog, options, shape, state, plan, coupling, role);
  builder.Run(arrival_ns, barrier_end_ns);
}

}  // namespace trainscope::synth
