#include "synth/model_schedule.h"

#include <algorithm>
#include <cmath>

#include "synth/synth.h"

namespace trainscope::synth {
namespace {

class StepBuilder {
 public:
  StepBuilder(const KernelCatalog& catalog, const SynthOptions& options, const ScheduleShape& shape,
              RankState* state, StepPlan* plan, const StepCoupling& coupling)
      : catalog_(catalog),
        coupling_(coupling),
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
    plan_.frames.clear();
    plan_.counts = PatternCounts();
    // The step-start all-reduce: this rank enters it on arrival and leaves it
    // when the slowest rank has arrived and the transfer is done.
    plan_.comm.push_back({arrival_ns, barrier_end_ns - arrival_ns, state_.all_reduce_seq++,
                          chains_.comm_all_reduce});
    plan_.comm_own_end.push_back(barrier_end_ns);
    comm_end_ = barrier_end_ns;
    compute_end_ = barrier_end_ns;
    ready_ = barrier_end_ns;

    const size_t step_frame = Enter(FrameKind::kTrainStep);
    for (int mb = 0; mb < shape_.micro_batches; ++mb) MicroBatch();
    // Gradients must be reduced before the optimizer touches them.
    ready_ = comm_end_;
    const int tensors = shape_.layers * shape_.optimizer_tensors_per_layer + 2;
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

  void Kernel(SpecId id) {
    int64_t start = compute_end_ + DrawGap();
    if (ready_ > compute_end_) start = std::max(start, ready_ + ToTicks(rng_.Uniform(1500, 4000)));
    int64_t dur = DrawDuration(id);
    if (coupling_.compute_slowdown != 1.0) {
      dur = ToTicks(static_cast<double>(dur) * coupling_.compute_slowdown);
    }
    plan_.compute.push_back({start, dur, 0, id});
    compute_end_ = start + dur;
  }

  void Run(const Chain& chain) {
    for (SpecId id : chain) Kernel(id);
  }

  // Enqueues a collective on the communication stream; returns its end.
  int64_t Comm(SpecId id, int64_t issue_ns, uint32_t* seq) {
    const int64_t start = std::max(comm_end_ + ToTicks(rng_.Uniform(800, 3000)),
                                   issue_ns + ToTicks(rng_.Uniform(2000, 6000)));
    const int64_t own = DrawDuration(id);
    // A collective ends when the last rank has done its part (the floor).
    const size_t k = plan_.comm.size();
    int64_t end = start + own;
    if (k < coupling_.floors.size()) end = std::max(end, coupling_.floors[k]);
    plan_.comm.push_back({start, end - start, (*seq)++, id});
    plan_.comm_own_end.push_back(start + own);
    comm_end_ = end;
    return comm_end_;
  }

  int64_t AllGather(int64_t issue_ns) {
    return Comm(chains_.comm_all_gather, issue_ns, &state_.all_gather_seq);
  }

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
    Kernel(c.mm_gate);
    Kernel(c.mm_up);
    Run(c.swiglu_fwd[options_.fused_swiglu ? 1 : 0]);
    if (!options_.fused_swiglu) ++plan_.counts.swiglu_fwd;
    Kernel(c.mm_down);
    Exit(mlp);
    Kernel(c.add_residual);
    Exit(decoder);
  }

  void BackwardLayer() {
    const Chains& c = chains_;
    const bool glue = !options_.native_custom_op;
    Kernel(c.mm_down_dx);
    Kernel(c.mm_down_dw);
    Run(c.swiglu_bwd[options_.fused_swiglu ? 1 : 0]);
    if (!options_.fused_swiglu) ++plan_.counts.swiglu_bwd;
    Kernel(c.mm_gate_dx);
    Kernel(c.mm_gate_dw);
    Kernel(c.mm_up_dx);
    Kernel(c.mm_up_dw);
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

  void MicroBatch() {
    const int units = 2 * shape_.layers;
    prefetched_end_ = -1;
    const size_t model = Enter(FrameKind::kModelForward);
    const size_t embedding = Enter(FrameKind::kEmbedding);
    Kernel(chains_.embedding);
    Exit(embedding);
    for (int l = 0; l < shape_.layers; ++l) {
      Unshard(l, units);
      ForwardLayer(l);
    }
    Norm(false, 2 * shape_.layers);
    LossForward();  // inside the model's forward, as Hugging Face models compute it
    Exit(model);
    const size_t backward = Enter(FrameKind::kBackward);
    LossBackward();
    Norm(true);
    for (int l = 0; l < shape_.layers; ++l) {
      Unshard(shape_.layers + l, units);
      BackwardLayer();
      Comm(chains_.comm_reduce_scatter, compute_end_, &state_.reduce_scatter_seq);
    }
    Kernel(chains_.embedding_grad);
    Exit(backward);
  }

  const KernelCatalog& catalog_;
  const StepCoupling& coupling_;
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
};

}  // namespace

int64_t TickNs(const SynthOptions& options) {
  return options.header == HeaderVariant::kLegacy2023 ? 100 : 20;
}

int64_t UsToTicks(double us, int64_t tick_ns) {
  const int64_t ticks = std::llround(us * 1000.0 / static_cast<double>(tick_ns));
  return std::max<int64_t>(1, ticks) * tick_ns;
}

void BuildStep(const KernelCatalog& catalog, const SynthOptions& options,
               const ScheduleShape& shape, int64_t arrival_ns, int64_t barrier_end_ns,
               RankState* state, StepPlan* plan, const StepCoupling& coupling) {
  StepBuilder builder(catalog, options, shape, state, plan, coupling);
  builder.Run(arrival_ns, barrier_end_ns);
}

}  // namespace trainscope::synth
