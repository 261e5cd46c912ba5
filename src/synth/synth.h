// trainscope synth: a deterministic generator of realistic Ascend profiles.
//
// Writes a job directory of N rank directories in the torch_npu text layout
// for an LLM training step, with each remedy of methodology §2 switchable, so
// that a baseline looks like the article's baseline and the fused run like
// the optimised one. Also writes ground_truth.json with what was planted.
#pragma once

#include <cstdint>
#include <string>

#include "core/enum_names.h"
#include "core/status.h"

namespace trainscope::synth {

enum class HeaderVariant {
  kLegacy2023,   // no Device_id, ArithmeticUtilization-era columns, no trailing tab
  kLevel1_2025,  // Step Id,Model ID,... Block Dim, PipeUtilization, trailing tabs
  kCann83,       // Device_id second, COMMUNICATION accelerator, Block Dim
  kCann2026,     // Block Num / Mix Block Num
};

// The variants as `synth --header` spells them.
inline constexpr EnumNames<HeaderVariant, 4> kHeaderVariantNames{
    {{{HeaderVariant::kLegacy2023, "legacy2023"},
      {HeaderVariant::kLevel1_2025, "level1-2025"},
      {HeaderVariant::kCann83, "cann83"},
      {HeaderVariant::kCann2026, "cann2026"}}},
    "cann83"};

struct SynthOptions {
  uint64_t seed = 1;
  int ranks = 2;
  int layers = 8;
  int micro_batches = 2;
  int steps = 3;  // ProfilerStep#N for N in [first_step, first_step+steps)
  int first_step = 5;
  int hidden = 2048;   // drives matmul / norm durations
  int vocab = 151936;  // drives the loss
  double scale = 1.0;  // multiplies the micro-batches (layers x micro-batches work): big files
  HeaderVariant header = HeaderVariant::kCann83;
  // Remedies (methodology §2). true = the optimised variant.
  bool fused_rmsnorm = false;
  bool fused_gated_norm = false;
  bool fused_swiglu = false;
  bool fused_cross_entropy = false;
  bool native_custom_op = false;           // false: StridedSlice/PadV3 glue around the custom op
  bool unshard_on_compute_stream = false;  // false: separate-stream FSDP unshard (pseudo-overlap)
  bool numa_bound = false;                 // false: unbound host skew between ranks
  // First-kernel spread across unbound ranks (the article's 104.5 ms by
  // default; tests plant smaller ones). Bound ranks keep only the spread of
  // their step preparation (docs/synth.md).
  double host_skew_ms = 104.5;
  // Not one of the six remedies (AllFused leaves it): false = per-tensor
  // decomposed AdamW loop (Muls/Add/Mul/Sqrt/Adds/RealDiv/Add), true = one
  // ApplyAdamWV2 kernel per tensor.
  bool fused_optimizer = false;
  // Cluster faults (not remedies; AllFused leaves them). straggler_rank >= 0:
  // that rank's compute is straggler_slowdown slower, so every other rank
  // waits for it in each collective. slow_link: the link slow_link_src ->
  // slow_link_dst runs at slow_link_share of its transport's bandwidth, in
  // communication_matrix.json and in time: a ring collective of the world
  // group runs at its slowest link's pace, so the two ranks' part of each
  // takes 1 / slow_link_share as long and every participant waits for it.
  int straggler_rank = -1;
  double straggler_slowdown = 1.15;
  // late_rank >= 0: that rank reaches every step late_ms after it would
  // (a slow data loader, a host hiccup): the others wait for it in the
  // step-start collective; its compute runs at the normal pace.
  int late_rank = -1;
  double late_ms = 35.0;
  // host_bound_rank >= 0: that rank's host issues a kernel at most every
  // dispatch_us (a slow Python loop, an oversubscribed core): each kernel
  // starts no earlier than dispatch_us after the previous one did, so short
  // kernels leave the device idle; with trace_view each such gap's kernel is
  // launched after the device went idle.
  int host_bound_rank = -1;
  double dispatch_us = 200.0;
  bool slow_link = false;
  double slow_link_share = 0.1;
  // Parallel layout (synth/parallel_layout.h, docs/synth.md "Parallel
  // layouts"): tensor-, pipeline- and expert-parallel sizes; data
  // parallelism takes the rest of the ranks (ranks / (tp * pp)). With all
  // three at 1 and ddp false the job is the FSDP job of the article;
  // otherwise data parallelism is Megatron's (gradient all-reduce buckets).
  int tp = 1;
  int pp = 1;
  int ep = 1;
  bool ddp = false;
  int slow_link_src = 0;
  int slow_link_dst = 1;
  // Also write ASCEND_PROFILER_OUTPUT/trace_view.json per rank (host ops,
  // launch flows, device tasks, HCCL ops, Overlap Analysis; about 3.5x the
  // size of kernel_details.csv). Off by default: the other files are then
  // byte-identical to a run without these fields.
  bool trace_view = false;
  // With trace_view: the Python frames of torch's with_stack=True around the
  // framework ops; ground_truth.json then names each pattern's source line.
  bool with_stack = false;
  // Also write memory_record.csv, operator_memory.csv and npu_module_mem.csv
  // per rank (synth/memory_writer.h; profile_memory=True). Off by default,
  // like trace_view: the other files keep their bytes.
  bool memory = false;
  // Planted regressions (not remedies; AllFused leaves them): every compute
  // kernel of every rank |slowdown| times as long, and the kernels whose
  // type is |slow_op| |slow_op_factor| times as long. They draw nothing
  // from the PRNG: with the same seed, only durations and times change.
  double slowdown = 1.0;
  std::string slow_op;
  // With slow_op: only its kernels of these input shapes (kernel_details'
  // Input Shapes without the quotes, "4096,2048;2048,6144"; empty: all), a
  // GEMM shape running below the rate the others reach.
  std::string slow_op_shapes;
  double slow_op_factor = 1.0;
  // Hosts: the ranks split into |hosts| contiguous groups, each rank's
  // directory named as torch_npu names it, {host}_{pid}_{timestamp}_ascend_pt
  // (host "{name}-node{h}"); 1 keeps {name}_rank{r}_... (no host named).
  // The host |clock_offset_host| (-1: none) reads a clock |clock_offset_ms|
  // ahead: every time its ranks write is that much later (the clock
  // alignment's fixture, docs/clusters.md). Nothing else changes.
  int hosts = 1;
  int clock_offset_host = -1;
  double clock_offset_ms = 0;
  std::string name = "synth";
};

// Applies every remedy (the "optimised" run of the article).
SynthOptions AllFused(SynthOptions options);

// The usage errors WriteSynthJob would return for |options|, without
// touching the file system (demo checks its options before anything else).
Status ValidateSynthOptions(const SynthOptions& options);

// Writes the job under |out_dir| (created; must be empty or absent), and
// |out_dir|/trainscope-manifest.txt listing what it wrote (synth/manifest.h).
// The job is written in a hidden directory beside |out_dir| and renamed onto
// it once complete: after a failure or a kill nothing is under |out_dir|.
Status WriteSynthJob(const SynthOptions& options, const std::string& out_dir);

}  // namespace trainscope::synth
