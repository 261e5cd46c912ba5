#include "analysis/threshold_findings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace trainscope::analysis {
namespace {

constexpr double kCommNormal = 0.10;
constexpr double kCommExamine = 0.20;
constexpr double kFreeNormal = 0.03;
constexpr double kDominantOperator = 0.30;
// AI Core pipe ratios: a kernel whose cube (MAC) pipe is busy most of the
// time is compute-bound; one whose MTE2 (HBM -> on-chip) pipe is, memory-bound.
constexpr double kPipeBusy = 0.6;
constexpr double kPipeLow = 0.3;

Finding Base(const RankAnalysis& rank, const char* id) {
  Finding f;
  f.id = id;
  f.ranks = {rank.rank};
  f.occurrences = 1;
  return f;
}

void ExposedCommunication(const RankAnalysis& rank, const StepDistribution& step,
                          std::vector<Finding>* out) {
  if (!step.breakdown || step.breakdown->budget.total_ns <= 0) return;
  const TimeBudget& b = step.breakdown->budget;
  const double share =
      static_cast<double>(b.exposed_communication_ns) / static_cast<double>(b.total_ns);
  if (share <= kCommNormal) return;
  Finding f = Base(rank, "exposed-communication");
  const bool examine = share > kCommExamine;
  f.title = examine ? "Exposed communication above 20% of the step: must be examined"
                    : "Exposed communication above the 10% normal band";
  f.evidence = fmt::format(
      "{:.1f}% of step {} ({:.1f} of {:.1f} ms) is communication not overlapped by compute ({} "
      "band: "
      "<=10% normal, 10-20% watch, >20% examine); communication total {:.1f} ms",
      share * 100, step.step, b.exposed_communication_ns / 1e6, b.total_ns / 1e6,
      examine ? ">20% examine" : "10-20% watch", b.communication_ns / 1e6);
  f.evidence_values = {{"exposed_communication_pct", share * 100},
                       {"exposed_communication_ms", b.exposed_communication_ns / 1e6},
                       {"step_ms", b.total_ns / 1e6}};
  f.root_cause =
      "collectives the compute stream waits for: FSDP unshard/reduce-scatter not prefetched, a "
      "barrier "
      "waiting for a slow rank at step start, or communication in many small slices";
  f.remedy =
      "more forward/backward prefetch (FSDP2 module.set_modules_to_forward_prefetch / "
      "set_modules_to_backward_prefetch, MindSpeed-LLM FSDP prefetch counts), issue the unshard on "
      "the "
      "compute stream, fused MoE dispatcher / EP MC2, check groups and topology; if it sits at "
      "step start, "
      "look at rank skew (cluster findings)";
  // Say how much of it is the step-start wait: when ranks are skewed that
  // part is the cross-rank step-start-skew / straggler cost, not this rank's.
  if (rank.timeline.step == step.step && !rank.timeline.step_start_waits_for.empty()) {
    double barrier_ms =
        std::min(rank.timeline.step_start_idle_us / 1000.0, b.exposed_communication_ns / 1e6);
    f.evidence += fmt::format("; of which {:.1f} ms is compute waiting at step start for {}",
                              barrier_ms, rank.timeline.step_start_waits_for);
    f.evidence_values.push_back({"step_start_wait_ms", barrier_ms});
  }
  f.estimated_gain_pct = (share - kCommNormal) * 100;
  f.gain_model =
      "upper bound: the share of exposed communication above the 10% normal band (methodology §3), "
      "assuming that much can be overlapped or removed; it includes the step-start wait, which "
      "step-start-skew (when reported) also counts";
  out->push_back(std::move(f));
}

void HostBound(const RankAnalysis& rank, const StepDistribution& step, std::vector<Finding>* out) {
  if (!step.breakdown || step.breakdown->budget.total_ns <= 0) return;
  const TimeBudget& b = step.breakdown->budget;
  const double share = static_cast<double>(b.idle_ns) / static_cast<double>(b.total_ns);
  if (share <= kFreeNormal) return;
  Finding f = Base(rank, "host-bound");
  f.title = "Device idle (free) time above 3% of the step: host-bound dispatch";
  f.evidence = fmt::format(
      "device free {:.1f}% of step {} ({:.1f} of {:.1f} ms; normal < 3%); {} kernels, one issued "
      "every "
      "{:.1f} us on average, p50 {:.1f} us, {:.0f}% <= 50 us",
      share * 100, step.step, b.idle_ns / 1e6, b.total_ns / 1e6, step.kernels.count,
      step.kernels.mean_issue_interval_us, step.kernels.p50_us, step.kernels.share_le_50us * 100);
  f.evidence_values = {{"free_pct", share * 100},
                       {"free_ms", b.idle_ns / 1e6},
                       {"kernels", static_cast<double>(step.kernels.count)},
                       {"p50_us", step.kernels.p50_us}};
  f.root_cause =
      "the host does not issue kernels fast enough: too many small operators, CPU contention or "
      "threads "
      "drifting across NUMA nodes, synchronous calls (.item(), .cpu()) in the step";
  f.remedy =
      "TASK_QUEUE_ENABLE=2 (torch_npu two-level task queue), bind CPU cores (CPU_AFFINITY_CONF=1 "
      "or numactl "
      "per rank), fuse small operators (see the unfused-* findings), remove host syncs; on GPU: "
      "CUDA graphs "
      "/ torch.compile";
  f.estimated_gain_pct = (share - kFreeNormal) * 100;
  f.gain_model = "upper bound: device free time above the 3% normal band (methodology §3)";
  out->push_back(std::move(f));
}

void DominantOperator(const RankAnalysis& rank, const StepDistribution& step,
                      std::vector<Finding>* out) {
  if (step.kernels.total_time_us <= 0) return;
  // Communication has its own rule (exposed communication): this one is
  // about the compute operator to optimise first.
  const OperatorStat* found = nullptr;
  for (const auto& op : step.top_operators) {
    if (op.family != "communication") {
      found = &op;
      break;
    }
  }
  if (found == nullptr || found->share_time <= kDominantOperator) return;
  const OperatorStat& top = *found;
  Finding f = Base(rank, "dominant-operator");
  f.title = fmt::format("One operator type, {}, takes over 30% of kernel time", top.op_type);
  f.evidence = fmt::format(
      "{} ({}): {} calls, {:.1f} ms, {:.1f}% of the step's kernel time (mean {:.1f} us)",
      top.op_type, top.family, top.count, top.total_us / 1e3, top.share_time * 100, top.mean_us);
  f.evidence_values = {{"share_of_kernel_time_pct", top.share_time * 100},
                       {"total_ms", top.total_us / 1e3},
                       {"count", static_cast<double>(top.count)}};
  f.root_cause =
      "the first optimisation target by the method's top-N rule: " + top.op_type + " dominates";
  f.remedy =
      "check its efficiency first (shapes, dtype, format; aic_mac_ratio vs aic_mte2_ratio): matmul "
      "-> "
      "aligned shapes / HF32 / grouped matmul; attention -> flash attention "
      "(npu_fusion_attention); norm / "
      "RoPE -> fused kernels";
  const double step_us = step.breakdown && step.breakdown->budget.total_ns > 0
                             ? step.breakdown->budget.total_ns / 1e3
                             : step.kernels.span_us;
  f.estimated_gain_pct = step_us > 0 ? (top.share_time - kDominantOperator) *
                                           step.kernels.total_time_us / step_us * 100
                                     : 0;
  f.gain_model =
      "upper bound: its kernel time above the 30% threshold, as a share of the step span (assumes "
      "that "
      "time is on the critical path)";
  out->push_back(std::move(f));
}

void PipeBound(const RankAnalysis& rank, const StepDistribution& step,
               const model::RankProfile& profile, std::vector<Finding>* out) {
  const auto& t = profile.kernels;
  // Duration-weighted pipe ratios per op type of the top operators.
  for (size_t k = 0; k < std::min<size_t>(step.top_operators.size(), 5); ++k) {
    const OperatorStat& op = step.top_operators[k];
    if (op.share_time < 0.10) continue;
    double mac = 0, mte2 = 0, weight = 0;
    for (const uint32_t i : t.RowsOf(step.step)) {
      if (std::isnan(t.aic_mac_ratio[i]) || std::isnan(t.aic_mte2_ratio[i])) continue;
      if (profile.strings.Get(t.op_type[i]) != op.op_type) continue;
      const double w = static_cast<double>(t.duration_ns[i]);
      mac += w * t.aic_mac_ratio[i];
      mte2 += w * t.aic_mte2_ratio[i];
      weight += w;
    }
    if (weight <= 0) continue;
    mac /= weight;
    mte2 /= weight;
    const bool memory = mte2 >= kPipeBusy && mac < kPipeLow;
    const bool compute = mac >= kPipeBusy;
    if (!memory && !compute) continue;
    Finding f = Base(rank, memory ? "memory-bound-operator" : "compute-bound-operator");
    f.title = fmt::format("{} is {}-bound ({:.0f}% of kernel time)", op.op_type,
                          memory ? "memory" : "compute", op.share_time * 100);
    f.evidence = fmt::format(
        "{}: aic_mac_ratio {:.2f}, aic_mte2_ratio {:.2f} (duration-weighted), {:.1f}% of kernel "
        "time",
        op.op_type, mac, mte2, op.share_time * 100);
    f.evidence_values = {{"aic_mac_ratio", mac},
                         {"aic_mte2_ratio", mte2},
                         {"share_of_kernel_time_pct", op.share_time * 100}};
    f.root_cause = memory ? "the kernel waits on HBM reads (MTE2), not on the cube unit"
                          : "the cube unit is saturated: the kernel is at its arithmetic limit";
    f.remedy =
        memory
            ? "fuse it with its neighbours so data is read once (fused norm/activation), use bf16 "
              "instead of fp32 intermediates, avoid layout glue (TransData)"
            : "fewer FLOPs: recompute less, better parallel split (TP/CP), FP8/HF32 where accuracy "
              "allows";
    f.estimated_gain_pct = 0;
    f.gain_model = "classification only (methodology §3 bottleneck types); no gain estimated";
    out->push_back(std::move(f));
  }
}

}  // namespace

std::vector<Finding> ThresholdFindings(const RankAnalysis& rank,
                                       const model::RankProfile& profile) {
  std::vector<Finding> out;
  const StepDistribution* step = rank.selected();
  if (step == nullptr) return out;
  ExposedCommunication(rank, *step, &out);
  HostBound(rank, *step, &out);
  DominantOperator(rank, *step, &out);
  PipeBound(rank, *step, profile, &out);
  return out;
}

}  // namespace trainscope::analysis
