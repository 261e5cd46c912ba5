// The kernel sequence of one training step on one rank, as planted kernels.
//
// The schedule is a small discrete-event model of one NPU: a compute stream
// that runs kernels back to back with host dispatch gaps, and a
// communication stream for HCCL ops. Compute waits for an FSDP all-gather
// before each layer; where the all-gather is issued decides whether that
// wait is hidden (prefetch) or exposed ("pseudo-overlap").
#pragma once

#include <cstdint>
#include <vector>

#include "synth/host_frames.h"
#include "synth/kernel_catalog.h"
#include "synth/rng.h"

namespace trainscope::synth {

struct SynthOptions;

// One kernel as planted. Times are absolute epoch nanoseconds.
struct PlantedKernel {
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  uint32_t seq = 0;  // comm kernels: the per-op-type counter in the name
  SpecId spec = 0;
};

// How many instances of each remedy's fingerprint one step plants on one rank.
struct PatternCounts {
  int64_t rmsnorm_fwd = 0, rmsnorm_bwd = 0;
  int64_t gated_norm_fwd = 0, gated_norm_bwd = 0;
  int64_t swiglu_fwd = 0, swiglu_bwd = 0;
  int64_t cross_entropy_fwd = 0, cross_entropy_bwd = 0;
  int64_t glue_fwd = 0, glue_bwd = 0;
  int64_t pseudo_overlap = 0;
};

// The work one step does, after scale is applied.
struct ScheduleShape {
  int layers = 1;
  int micro_batches = 1;
  int optimizer_tensors_per_layer = 8;
  int loss_chunks = 4;
};

// Per-rank state that carries across steps (HCCL op counters).
struct RankState {
  explicit RankState(Rng rng_in) : rng(rng_in) {}
  Rng rng;
  uint32_t all_reduce_seq = 1;
  uint32_t all_gather_seq = 1;
  uint32_t reduce_scatter_seq = 1;
  uint32_t layout_seq = 1;  // the parallel layout's collectives (RankRole)
};

// A Python frame of the host program around a run of compute kernels: the
// kernels compute[begin, end) were launched inside it. Recorded whatever the
// options (no PRNG draw, a few per layer) and written to trace_view.json only
// with with_stack.
struct HostFrame {
  uint32_t begin = 0;
  uint32_t end = 0;
  FrameKind kind = FrameKind::kTrainStep;
  uint32_t instance = 0;  // the module's instance number: nn.Module: <Class>_<instance>
};

struct StepPlan {
  std::vector<PlantedKernel> compute;  // sorted, non-overlapping
  std::vector<PlantedKernel> comm;     // sorted, non-overlapping
  // Per comm op: which op it is across ranks (CommKey); ops of one key end
  // together, when the last of their ranks is done.
  std::vector<uint64_t> comm_key;
  int64_t end_ns = 0;  // end of the last kernel
  PatternCounts counts;
  // Nested frames ordered by begin, enclosing frames first. Compute kernels
  // inside a FrameKind::kBackward frame run on the autograd thread.
  std::vector<HostFrame> frames;
  // Per comm op (same order as comm): when this rank would finish its own
  // transfer if nobody waited (start + drawn duration).
  std::vector<int64_t> comm_own_end;
};

// Where a rank sits in the parallel layout (synth/parallel_layout.h), as
// the schedule needs it: its pipeline stage, and the comm spec and group of
// each kind of collective it runs.
struct RankRole {
  int stage = 0;
  int stages = 1;
  int tp = 1;
  bool fsdp = true;  // FSDP unshard / reduce-scatter; else DP all-reduce buckets
  bool moe = false;  // expert-parallel MoE MLP
  SpecId tp_all_reduce = 0, p2p = 0, all_to_all = 0, dp_all_reduce = 0;
  bool has_dp_all_reduce = false;
  uint64_t tp_group = 0, pp_group = 0, ep_group = 0, dp_group = 0;
};

// The identity of a comm op across ranks: (group kind, group, number within
// the group's step). The default job's ops are all of the world group,
// numbered in issue order, which is the same on every rank.
uint64_t CommKey(uint64_t kind, uint64_t group, uint64_t local);

// Cross-rank coupling of one step: this rank's comm op k cannot end before
// floors[k] (the last end among the ranks that run it); empty = no coupling.
struct StepCoupling {
  std::vector<int64_t> floors;
  double compute_slowdown = 1.0;  // > 1 on a straggler rank
  // > 1 on the two ranks of a slow link: their part of each world-group
  // collective takes this many times as long (the others wait for it).
  double world_comm_slowdown = 1.0;
  // > 0 on a host-bound rank: a kernel starts at least this long after the
  // previous one started (the host's issue interval).
  int64_t dispatch_ns = 0;
};

// The time resolution of planted kernels: real device timestamps are
// multiples of 20 ns; the 2023 layout prints starts with one decimal only, so
// there every time is a multiple of 100 ns and the printed values stay exact.
int64_t TickNs(const SynthOptions& options);

// Rounds |us| to a whole number of ticks, in nanoseconds (at least one tick).
int64_t UsToTicks(double us, int64_t tick_ns);

// Plans one step. The rank reaches the step-start all-reduce at |arrival_ns|;
// the all-reduce completes on every rank at |barrier_end_ns| (the barrier).
void BuildStep(const KernelCatalog& catalog, const SynthOptions& options,
               const ScheduleShape& shape, int64_t arrival_ns, int64_t barrier_end_ns,
               RankState* state, StepPlan* plan, const StepCoupling& coupling = {},
               const RankRole& role = {});

}  // namespace trainscope::synth
