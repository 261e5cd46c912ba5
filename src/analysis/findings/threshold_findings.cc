#include "analysis/findings/threshold_findings.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "analysis/findings/memory_findings.h"
#include "analysis/step/matmul_shapes.h"
#include "analysis/step/online_compile.h"

namespace trainscope::analysis {
namespace {

Finding Base(int32_t rank, const char* id) {
  Finding f;
  f.id = id;
  f.ranks = {rank};
  f.occurrences = 1;
  return f;
}

// Tensor or pipeline model parallelism in profiler_metadata.json's
// distributed_args: a Megatron / MindSpeed layout, whose data parallelism is
// Megatron's (DDP buckets, distributed optimizer), not FSDP. Data
// parallelism alone does not tell the two apart.
bool IsMegatronLayout(const model::CaptureInfo& info) {
  for (const char* key : {"tensor_model_parallel_size", "pipeline_model_parallel_size"}) {
    auto it = info.parallel_sizes.find(key);
    if (it != info.parallel_sizes.end() && it->second > 1) return true;
  }
  return false;
}

// A mixture-of-experts job: expert parallelism in profiler_metadata.json,
// or kernels of MoE routing and expert computation (moe_align, fused_moe,
// MoeGatingTopK, GroupedMatmul for experts...).
bool HasExperts(const model::RankProfile& profile) {
  auto it = profile.info.parallel_sizes.find("expert_model_parallel_size");
  if (it != profile.info.parallel_sizes.end() && it->second > 1) return true;
  for (StringId id = 0; id < profile.strings.size(); ++id) {
    const std::string_view name = profile.strings.Get(id);
    for (std::string_view part : {"moe", "Moe", "MoE", "MOE"}) {
      if (name.find(part) != std::string_view::npos) return true;
    }
  }
  return false;
}

// Exposed send/receive of the step: pipeline stages waiting for each
// other's activations or gradients (0 when the timeline is of another step).
int64_t ExposedPointToPointNs(const StepDistribution& step, const StepTimeline& timeline) {
  if (!step.breakdown || timeline.step != step.step) return 0;
  return std::min(timeline.p2p_not_overlapped_ns, step.breakdown->budget.exposed_communication_ns);
}

// Exposed send/receive above the normal band of exposed communication: the
// pipeline's bubble or an imbalance between its stages, not collectives to
// prefetch.
void PipelineBubble(int32_t rank, const StepDistribution& step, const StepTimeline& timeline,
                    const FindingThresholds& t, std::vector<Finding>* out) {
  const int64_t p2p_ns = ExposedPointToPointNs(step, timeline);
  if (p2p_ns <= 0 || step.breakdown->budget.total_ns <= 0) return;
  const TimeBudget& b = step.breakdown->budget;
  const double share = static_cast<double>(p2p_ns) / static_cast<double>(b.total_ns);
  if (share <= t.exposed_comm_normal) return;
  Finding f = Base(rank, "pipeline-bubble");
  f.evidence_values = {{"exposed_p2p_pct", share * 100},
                       {"exposed_p2p_ms", EvidenceMs(p2p_ns)},
                       {"step_ms", EvidenceMs(b.total_ns)}};
  f.text_values = {{"step", step.step},
                   {"exposed_communication_ms", EvidenceMs(b.exposed_communication_ns)}};
  f.estimated_gain_pct = (share - t.exposed_comm_normal) * 100;
  out->push_back(std::move(f));
}

// Exposed collectives other than send/receive (those are PipelineBubble's).
void ExposedCommunication(int32_t rank, const StepDistribution& step, const StepTimeline& timeline,
                          const model::RankProfile& profile, const FindingThresholds& t,
                          std::vector<Finding>* out) {
  const bool megatron = IsMegatronLayout(profile.info);
  if (!step.breakdown || step.breakdown->budget.total_ns <= 0) return;
  const TimeBudget& b = step.breakdown->budget;
  const int64_t p2p_ns = ExposedPointToPointNs(step, timeline);
  const int64_t exposed_ns = b.exposed_communication_ns - p2p_ns;
  const double share = static_cast<double>(exposed_ns) / static_cast<double>(b.total_ns);
  if (share <= t.exposed_comm_normal) return;
  Finding f = Base(rank, "exposed-communication");
  if (share > t.exposed_comm_examine) f.variant = "examine";
  // Mostly all-to-all: its own remedies (tried before the layout's), MoE's
  // when the job has experts; else all-to-all may be a recommendation
  // model's embedding exchange or sequence parallelism's head exchange.
  const int64_t all_to_all_ns =
      timeline.step == step.step ? std::min(timeline.all_to_all_not_overlapped_ns, exposed_ns) : 0;
  if (all_to_all_ns * 2 > exposed_ns) {
    const char* kind = HasExperts(profile) ? "moe" : "alltoall";
    f.variant += (f.variant.empty() ? "" : "+") + std::string(kind);
  }
  // Mostly the tensor-parallel group's collectives: sequence-parallel and
  // TP-overlap remedies (tried before the data-parallel ones).
  const int64_t tensor_parallel_ns =
      timeline.step == step.step ? std::min(timeline.tensor_parallel_not_overlapped_ns, exposed_ns)
                                 : 0;
  if (tensor_parallel_ns * 2 > exposed_ns) f.variant += f.variant.empty() ? "tp" : "+tp";
  // A Megatron / MindSpeed layout: its data-parallel overlap switches
  // differ from FSDP's.
  if (megatron) f.variant += f.variant.empty() ? "megatron" : "+megatron";
  f.evidence_values = {{"exposed_communication_pct", share * 100},
                       {"exposed_communication_ms", EvidenceMs(exposed_ns)},
                       {"step_ms", EvidenceMs(b.total_ns)}};
  f.text_values = {{"step", step.step}, {"communication_ms", EvidenceMs(b.communication_ns)}};
  if (p2p_ns > 0) f.evidence_values.push_back({"exposed_p2p_ms", EvidenceMs(p2p_ns)});
  if (all_to_all_ns > 0) {
    f.evidence_values.push_back({"exposed_all_to_all_ms", EvidenceMs(all_to_all_ns)});
  }
  if (tensor_parallel_ns > 0) {
    f.evidence_values.push_back({"exposed_tensor_parallel_ms", EvidenceMs(tensor_parallel_ns)});
  }
  // Say how much of it is the step-start wait: when ranks are skewed that
  // part is the cross-rank step-start-skew / straggler cost, not this rank's.
  if (timeline.step == step.step && !timeline.step_start_waits_for.empty()) {
    const int64_t barrier_ns = std::min(timeline.step_start_idle_ns, exposed_ns);
    f.evidence_values.push_back({"step_start_wait_ms", EvidenceMs(barrier_ns)});
    f.text_labels = {{"waits_for", timeline.step_start_waits_for}};
  }
  f.estimated_gain_pct = (share - t.exposed_comm_normal) * 100;
  out->push_back(std::move(f));
}

// The value of |key| in profiler_metadata.json's ENV_VARIABLES; "" when the
// variable is unset, empty or not recorded.
std::string_view EnvValue(const model::CaptureInfo& info, const char* key) {
  auto it = info.env.find(key);
  return it == info.env.end() ? std::string_view() : std::string_view(it->second);
}

// The host-dispatch switches (methodology §3: task queue, then CPU binding)
// this run already sets, "KEY=VALUE, ...", so the remedy does not recommend
// them again.
std::string DispatchSwitchesSet(const model::CaptureInfo& info) {
  std::string set;
  for (const char* key : {"TASK_QUEUE_ENABLE", "CPU_AFFINITY_CONF"}) {
    const std::string_view value = EnvValue(info, key);
    if (value.empty() || value == "0") continue;
    set += (set.empty() ? "" : ", ") + std::string(key) + "=" + std::string(value);
  }
  return set;
}

// Settings that change what the profile measures or slow every step:
// ASCEND_LAUNCH_BLOCKING / CUDA_LAUNCH_BLOCKING=1 runs
// every kernel synchronously with the host; ASCEND_GLOBAL_LOG_LEVEL 0/1
// (debug, info) logs on the dispatch path.
void EnvironmentChecks(int32_t rank, const StepDistribution& step, const model::CaptureInfo& info,
                       std::vector<Finding>* out) {
  for (const char* key : {"ASCEND_LAUNCH_BLOCKING", "CUDA_LAUNCH_BLOCKING"}) {
    if (EnvValue(info, key) != "1") continue;
    Finding f = Base(rank, "launch-blocking");
    f.text_labels = {{"variable", key}};
    f.text_values = {{"step", step.step}};
    double idle_pct = 0;
    if (step.breakdown && step.breakdown->budget.total_ns > 0) {
      idle_pct = static_cast<double>(step.breakdown->budget.idle_ns) /
                 static_cast<double>(step.breakdown->budget.total_ns) * 100;
      f.evidence_values = {{"free_pct", idle_pct}};
    }
    f.estimated_gain_pct = idle_pct;
    out->push_back(std::move(f));
    break;
  }
  const std::string_view level = EnvValue(info, "ASCEND_GLOBAL_LOG_LEVEL");
  if (level == "0" || level == "1") {
    Finding f = Base(rank, "verbose-logging");
    f.text_labels = {{"level", std::string(level)}};
    f.estimated_gain_pct = 0;
    out->push_back(std::move(f));
  }
}

// The host's launch API calls per step and their mean host time
// (api_statistic.csv's node-level "launch"), when the rank has them.
void AddLaunchEvidence(const model::RankProfile& profile, Finding* f) {
  const std::optional<HostApiStats> api = SummarizeHostApis(profile);
  if (!api || !api->launch_calls || *api->launch_calls <= 0) return;
  f->evidence_values.push_back({"launches_per_step", static_cast<double>(*api->launch_calls) /
                                                         static_cast<double>(api->steps)});
  f->evidence_values.push_back(
      {"launch_mean_us", EvidenceUs(*api->launch_ns) / static_cast<double>(*api->launch_calls)});
}

// CUDA/HIP graph replays among the rank's host ops (cudaGraphLaunch,
// hipGraphLaunch): graphs are already in use, so host-bound's remedy must not
// be "use CUDA graphs".
size_t CountGraphReplays(const model::RankProfile& profile) {
  const model::HostOps& ops = profile.timeline.host_ops;
  size_t replays = 0;
  for (std::string_view launch : {"cudaGraphLaunch", "hipGraphLaunch"}) {
    const StringId id = profile.strings.Find(launch);
    if (id == StringPool::kNotInterned) continue;
    replays += static_cast<size_t>(std::count(ops.name.begin(), ops.name.end(), id));
  }
  return replays;
}

// The step's free time, less the part the data loader explains: idle while
// the host is inside the loader is input-bound's, not slow dispatch.
void HostBound(int32_t rank, const StepDistribution& step, const model::RankProfile& profile,
               const FindingThresholds& t, std::vector<Finding>* out) {
  const model::CaptureInfo& info = profile.info;
  if (!step.breakdown || step.breakdown->budget.total_ns <= 0) return;
  const TimeBudget& b = step.breakdown->budget;
  // A timeline set aside gives no idle behind the loader (a time measured
  // on it): the free time is step_trace_time.csv's alone.
  const bool aside = !step.timeline_set_aside.empty();
  const int64_t loader_ns =
      step.data_loader && !aside
          ? std::clamp<int64_t>(step.data_loader->idle_in_window_ns, 0, b.idle_ns)
          : 0;
  const auto total = static_cast<double>(b.total_ns);
  const double free_share = static_cast<double>(b.idle_ns) / total;
  const double unexplained_share = static_cast<double>(b.idle_ns - loader_ns) / total;
  if (unexplained_share <= t.device_free_normal) return;
  // With launch links (a trace) the free time the host's launches left is
  // what faster dispatch removes (launch_gaps.h); the rest waited for
  // something else. The loader's idle is input-bound's: taken off, as if it
  // all lay in launch-bound gaps (the next launch follows the loader).
  const LaunchGapStats* gaps =
      step.launch_gaps && step.launch_gaps->gaps_with_launch > 0 ? &*step.launch_gaps : nullptr;
  const double share =
      gaps != nullptr
          ? static_cast<double>(std::max<int64_t>(0, gaps->launch_bound_ns - loader_ns)) / total
          : unexplained_share;
  Finding f = Base(rank, "host-bound");
  // Free time above the band, but not the host's launch rate: named, with
  // no gain, so that free time alone is never the diagnosis.
  const bool unproven = share <= t.device_free_normal;
  if (unproven) f.variant = "unproven";
  f.text_values = {{"step", step.step}, {"step_ms", EvidenceMs(b.total_ns)}};
  if (step.breakdown->source == kProfilerBudgetSource) {
    // Free time from step_trace_time.csv alone: no kernels to describe, or
    // none whose issue rate can be trusted.
    f.variant = aside ? "aside" : "profiler";
    f.evidence_values = {{"free_pct", free_share * 100}, {"free_ms", EvidenceMs(b.idle_ns)}};
  } else {
    f.evidence_values = {{"free_pct", free_share * 100},
                         {"free_ms", EvidenceMs(b.idle_ns)},
                         {"kernels", static_cast<double>(step.kernels.count)},
                         {"p50_us", EvidenceUs(step.kernels.p50_ns)}};
    // A rate over one kernel does not exist.
    if (step.kernels.count > 1) {
      f.text_values.push_back(
          {"issue_interval_us", EvidenceUs(step.kernels.mean_issue_interval_ns)});
    }
    f.text_values.push_back({"share_le_50us", step.kernels.share_le_50us});
  }
  // free_pct stays the step's whole free time; the part behind the data
  // loader is named, and left out of the verdict and the gain.
  if (loader_ns > 0) f.evidence_values.push_back({"loader_idle_ms", EvidenceMs(loader_ns)});
  if (gaps != nullptr) {
    f.evidence_values.push_back({"launch_bound_ms", EvidenceMs(gaps->launch_bound_ns)});
    f.evidence_values.push_back(
        {"launch_bound_gaps", static_cast<double>(gaps->launch_bound_gaps)});
    f.evidence_values.push_back({"gaps", static_cast<double>(gaps->gaps_with_launch)});
    if (gaps->median_launch_delay_ns) {
      f.evidence_values.push_back(
          {"median_launch_delay_us", EvidenceUs(*gaps->median_launch_delay_ns)});
    }
  }
  if (const std::string set = DispatchSwitchesSet(info); !set.empty()) {
    f.variant += f.variant.empty() ? "tuned" : "+tuned";
    f.text_labels.push_back({"env_set", set});
  }
  if (const size_t replays = CountGraphReplays(profile); replays > 0) {
    f.variant += f.variant.empty() ? "graphs" : "+graphs";
    f.evidence_values.push_back({"graph_launches", static_cast<double>(replays)});
  }
  AddLaunchEvidence(profile, &f);
  f.estimated_gain_pct = unproven ? 0 : (share - t.device_free_normal) * 100;
  out->push_back(std::move(f));
}

// Device idle while the host is inside the data loader, above the normal
// band of the iteration: the input pipeline does not keep up.
void InputBound(int32_t rank, const StepDistribution& step, const FindingThresholds& t,
                std::vector<Finding>* out) {
  if (!step.data_loader) return;
  const InputBoundStats& d = *step.data_loader;
  if (d.calls == 0 || d.step_ns <= 0) return;
  const double share = static_cast<double>(d.idle_ns) / static_cast<double>(d.step_ns);
  if (share <= t.input_idle_normal) return;
  Finding f = Base(rank, "input-bound");
  f.occurrences = d.calls;
  // Every call in the training process: num_workers=0.
  if (d.single_process_calls == d.calls) f.variant = "single";
  f.evidence_values = {{"loader_calls", static_cast<double>(d.calls)},
                       {"loader_ms", EvidenceMs(d.loader_ns)},
                       {"idle_ms", EvidenceMs(d.idle_ns)},
                       {"idle_pct", share * 100},
                       {"step_ms", EvidenceMs(d.step_ns)}};
  if (d.idle_in_window_ns > 0) {
    f.evidence_values.push_back({"idle_in_window_ms", EvidenceMs(d.idle_in_window_ns)});
  }
  f.text_values = {{"step", step.step}};
  // Batches ready before the loop asks for them remove at most that idle.
  f.estimated_gain_pct = share * 100;
  out->push_back(std::move(f));
}

// Device idle behind host synchronisation above the normal free band: the
// host waited for the device (.item(), an explicit synchronize), so the
// device drained its queue and idled until the host launched again.
void HostSync(int32_t rank, const StepDistribution& step, const FindingThresholds& t,
              std::vector<Finding>* out) {
  if (!step.host_sync || !step.breakdown || step.breakdown->budget.total_ns <= 0) return;
  const HostSyncStats& s = *step.host_sync;
  const auto total = static_cast<double>(step.breakdown->budget.total_ns);
  const double share = static_cast<double>(s.idle_ns) / total;
  if (s.syncs == 0 || share <= t.device_free_normal) return;
  Finding f = Base(rank, "host-sync");
  f.occurrences = s.syncs;
  f.evidence_values = {{"syncs", static_cast<double>(s.syncs)},
                       {"item_calls", static_cast<double>(s.item_calls)},
                       {"sync_ms", EvidenceMs(s.sync_ns)},
                       {"idle_ms", EvidenceMs(s.idle_ns)},
                       {"idle_pct", share * 100}};
  f.evidence_values.emplace_back("blocking_copies", static_cast<double>(s.blocking_copies));
  f.evidence_values.emplace_back("site_idle_ms", EvidenceMs(s.site_idle_ns));
  f.text_values = {{"step", step.step}, {"step_ms", EvidenceMs(total)}};
  f.text_labels = {{"site_op", s.site_op.empty() ? "a call without a framework op" : s.site_op},
                   {"site_source",
                    s.site_source.empty() ? "n/a (no Python stack in the trace)" : s.site_source}};
  // Removing the syncs removes at most the idle behind them.
  f.estimated_gain_pct = share * 100;
  out->push_back(std::move(f));
}

// Matmuls whose inputs' innermost axis is not 512-byte aligned (Ascend's
// advisor rule), when they are an operator class worth a look
// (pipe_operator_min_share of the step's kernel time).
void UnalignedMatmul(int32_t rank, const StepDistribution& step, const model::RankProfile& profile,
                     const FindingThresholds& t, std::vector<Finding>* out) {
  const int64_t kernel_ns = step.kernels.device_time_ns();
  if (kernel_ns <= 0) return;
  const std::optional<UnalignedMatmuls> u = FindUnalignedMatmuls(profile, step.step);
  if (!u || u->kernels == 0) return;
  const double share = static_cast<double>(u->total_ns) / static_cast<double>(kernel_ns);
  if (share < t.pipe_operator_min_share) return;
  Finding f = Base(rank, "unaligned-matmul");
  f.occurrences = u->kernels;
  f.evidence_values = {{"kernels", static_cast<double>(u->kernels)},
                       {"share_of_kernel_time_pct", share * 100},
                       {"total_ms", EvidenceMs(u->total_ns)},
                       {"inner_axis", static_cast<double>(u->top_axis)}};
  f.text_values = {{"step", step.step}};
  f.text_labels = {{"op_type", u->top_type}, {"shapes", u->top_shapes}, {"dtypes", u->top_dtypes}};
  f.estimated_gain_pct = 0;
  out->push_back(std::move(f));
}

// The matmul shape that is both costly (slow_matmul_min_share of the
// step's matmul time) and far below the best large matmul shape of its
// dtype in the same step (slow_matmul_relative of the yardstick): named
// with every such shape's lost time, the time they would save at the
// yardstick's rate. A saturated shape (at the yardstick, or a type that is
// compute-bound as a whole) is not flagged.
void SlowMatmulShape(int32_t rank, const StepDistribution& step, const FindingThresholds& t,
                     std::vector<Finding>* out) {
  if (!step.operator_efficiency || step.operator_efficiency->matmul_ns <= 0) return;
  const OperatorEfficiency& e = *step.operator_efficiency;
  const int64_t step_ns = step.breakdown && step.breakdown->budget.total_ns > 0
                              ? step.breakdown->budget.total_ns
                              : step.kernels.span_ns;
  if (step_ns <= 0) return;
  const ShapeEfficiency* worst = nullptr;
  double worst_lost_ns = 0, lost_ns = 0, slow_ns = 0;
  int64_t slow = 0;
  for (const ShapeEfficiency& r : e.rows) {
    const std::optional<double> relative = r.RelativePct();
    if (!r.matmul || !relative) continue;
    const double share = static_cast<double>(r.total_ns) / static_cast<double>(e.matmul_ns);
    if (share < t.slow_matmul_min_share || *relative >= t.slow_matmul_relative * 100) continue;
    // At the yardstick's rate the shape would take relative x its time.
    const double lost = static_cast<double>(r.total_ns) * (1 - *relative / 100);
    ++slow;
    lost_ns += lost;
    slow_ns += static_cast<double>(r.total_ns);
    if (worst == nullptr || lost > worst_lost_ns) worst = &r, worst_lost_ns = lost;
  }
  const double gain_pct = lost_ns / static_cast<double>(step_ns) * 100;
  if (worst == nullptr || gain_pct < t.slow_matmul_min_gain_pct) return;
  Finding f = Base(rank, "slow-matmul-shape");
  f.occurrences = slow;
  f.evidence_values = {{"shapes_flagged", static_cast<double>(slow)},
                       {"share_of_matmul_time_pct", static_cast<double>(worst->total_ns) /
                                                        static_cast<double>(e.matmul_ns) * 100},
                       {"total_ms", EvidenceMs(worst->total_ns)},
                       {"calls", static_cast<double>(worst->count)},
                       {"tflops", *worst->Tflops()},
                       {"yardstick_tflops", *worst->yardstick_tflops},
                       {"relative_pct", *worst->RelativePct()},
                       {"lost_ms", lost_ns / 1e6},
                       {"slow_ms", slow_ns / 1e6}};
  if (const std::optional<double> peak = worst->PeakPct()) {
    f.evidence_values.emplace_back("peak_pct", *peak);
    f.evidence_values.emplace_back("peak_tflops", *worst->peak_tflops);
  }
  f.text_values = {{"step", step.step}};
  f.text_labels = {{"op_type", worst->op_type},
                   {"shapes", worst->shapes},
                   {"dtypes", worst->dtypes},
                   {"yardstick_shape", worst->yardstick_shapes}};
  if (!e.peak_device.empty()) f.text_labels.emplace_back("device", e.peak_device);
  int64_t axis = 0;
  if (InnerAxesAligned(worst->shapes, worst->dtypes, &axis) == false) {
    f.text_values.emplace_back("unaligned_axis", static_cast<double>(axis));
  }
  f.estimated_gain_pct = std::min(100.0, gain_pct);
  out->push_back(std::move(f));
}

// Dynamic-shape kernels whose operators the host compiles online
// (msprof-analyze advisor: Operator Dynamic Shape, Operator Dispatch): most
// of the step's compute kernel time is in kernels whose OP State is dynamic,
// and api_statistic.csv shows the host compiling operators for a visible
// share of the step. Without api_statistic.csv the compilation is unknown
// and nothing is said: every kernel of a CANN 8.x aclnn run is dynamic.
void DynamicShape(int32_t rank, const StepDistribution& step, const model::RankProfile& profile,
                  const FindingThresholds& t, std::vector<Finding>* out) {
  const std::optional<DynamicShapeStats> dyn = ComputeDynamicShapes(profile, step.step);
  if (!dyn || dyn->dynamic_share() < t.dynamic_shape_min_share) return;
  const std::optional<HostApiStats> api = SummarizeHostApis(profile);
  if (!api || api->compile_calls == 0) return;
  const int64_t step_ns = step.breakdown && step.breakdown->budget.total_ns > 0
                              ? step.breakdown->budget.total_ns
                              : step.kernels.span_ns;
  if (step_ns <= 0) return;
  const int64_t compile_ns = api->compile_ns_per_step();
  const double compile_share = static_cast<double>(compile_ns) / static_cast<double>(step_ns);
  if (compile_share * 100 < t.online_compile_pct) return;
  Finding f = Base(rank, "dynamic-shape");
  f.occurrences = dyn->dynamic_kernels;
  f.evidence_values = {{"dynamic_kernels", static_cast<double>(dyn->dynamic_kernels)},
                       {"kernels", static_cast<double>(dyn->kernels)},
                       {"dynamic_share_pct", dyn->dynamic_share() * 100},
                       {"compile_calls_per_step", api->compile_calls_per_step()},
                       {"compile_per_step_ms", EvidenceMs(compile_ns)},
                       {"compile_pct", compile_share * 100},
                       {"steps_captured", static_cast<double>(api->steps)}};
  f.text_values = {{"step", step.step}, {"step_ms", EvidenceMs(step_ns)}};
  f.text_labels = {{"compile_apis", api->compile_apis}};
  // The host's compile time costs the step only while the device waits for
  // it: at most the device's free time, when the budget knows it.
  int64_t gain_ns = compile_ns;
  if (step.breakdown && step.breakdown->budget.total_ns > 0) {
    gain_ns = std::min(gain_ns, step.breakdown->budget.idle_ns);
  }
  f.estimated_gain_pct = static_cast<double>(gain_ns) / static_cast<double>(step_ns) * 100;
  out->push_back(std::move(f));
}

void DominantOperator(int32_t rank, const StepDistribution& step, const FindingThresholds& t,
                      std::vector<Finding>* out) {
  if (step.kernels.device_time_ns() <= 0) return;
  // Communication has its own rule (exposed communication): this one is
  // about the compute operator to optimise first. A kernel that only waits
  // (family "wait" in data/families.tsv) is no operator to optimise.
  const OperatorStat* found = nullptr;
  for (const auto& op : step.top_operators) {
    if (op.family != "communication" && op.family != "wait") {
      found = &op;
      break;
    }
  }
  if (found == nullptr || found->share_time <= t.dominant_operator) return;
  const OperatorStat& top = *found;
  Finding f = Base(rank, "dominant-operator");
  f.evidence_values = {{"share_of_kernel_time_pct", top.share_time * 100},
                       {"total_ms", EvidenceMs(top.total_ns)},
                       {"count", static_cast<double>(top.count)}};
  f.text_values = {{"mean_us", EvidenceUs(top.total_ns) / static_cast<double>(top.count)}};
  f.text_labels = {{"op_type", top.op_type}, {"family", top.family}};
  const int64_t step_ns = step.breakdown && step.breakdown->budget.total_ns > 0
                              ? step.breakdown->budget.total_ns
                              : step.kernels.span_ns;
  f.estimated_gain_pct = step_ns > 0 ? (top.share_time - t.dominant_operator) *
                                           static_cast<double>(step.kernels.device_time_ns()) /
                                           static_cast<double>(step_ns) * 100
                                     : 0;
  out->push_back(std::move(f));
}

void PipeBound(int32_t rank, const StepDistribution& step, const model::RankProfile& profile,
               const FindingThresholds& th, std::vector<Finding>* out) {
  const model::DeviceEvents& t = profile.device_events;
  if (!t.has_pmu()) return;  // no PipeUtilization metrics captured
  const model::PmuColumns& pmu = t.pmu();
  const auto top = static_cast<size_t>(th.pipe_top_operators);
  // Duration-weighted pipe ratios per op type of the top operators.
  for (size_t k = 0; k < std::min(step.top_operators.size(), top); ++k) {
    const OperatorStat& op = step.top_operators[k];
    if (op.share_time < th.pipe_operator_min_share) continue;
    double mac = 0, mte2 = 0, weight = 0;
    for (const uint32_t i : t.RowsOf(step.step)) {
      if (std::isnan(pmu.aic_mac_ratio[i]) || std::isnan(pmu.aic_mte2_ratio[i])) continue;
      if (profile.strings.Get(t.op_type[i]) != op.op_type) continue;
      const double w = static_cast<double>(t.duration_ns[i]);
      mac += w * pmu.aic_mac_ratio[i];
      mte2 += w * pmu.aic_mte2_ratio[i];
      weight += w;
    }
    if (weight <= 0) continue;
    mac /= weight;
    mte2 /= weight;
    // A kernel whose cube (MAC) pipe is busy most of the time is
    // compute-bound; one whose MTE2 (HBM -> on-chip) pipe is, memory-bound.
    const bool memory = mte2 >= th.pipe_busy && mac < th.pipe_low;
    const bool compute = mac >= th.pipe_busy;
    if (!memory && !compute) continue;
    Finding f = Base(rank, memory ? "memory-bound-operator" : "compute-bound-operator");
    f.evidence_values = {{"aic_mac_ratio", mac},
                         {"aic_mte2_ratio", mte2},
                         {"share_of_kernel_time_pct", op.share_time * 100}};
    f.text_labels = {{"op_type", op.op_type}};
    f.estimated_gain_pct = 0;
    out->push_back(std::move(f));
  }
}

}  // namespace

std::vector<Finding> ThresholdFindings(const StepDistribution& step, const StepTimeline& timeline,
                                       const model::RankProfile& profile,
                                       const FindingCatalog& catalog,
                                       const StepGapShares* memory_gaps) {
  std::vector<Finding> out;
  const FindingThresholds& t = catalog.thresholds();
  ExposedCommunication(profile.rank, step, timeline, profile, t, &out);
  PipelineBubble(profile.rank, step, timeline, t, &out);
  HostBound(profile.rank, step, profile, t, &out);
  InputBound(profile.rank, step, t, &out);
  EnvironmentChecks(profile.rank, step, profile.info, &out);
  HostSync(profile.rank, step, t, &out);
  UnalignedMatmul(profile.rank, step, profile, t, &out);
  DynamicShape(profile.rank, step, profile, t, &out);
  SlowMatmulShape(profile.rank, step, t, &out);
  DominantOperator(profile.rank, step, t, &out);
  PipeBound(profile.rank, step, profile, t, &out);
  for (Finding& f : MemoryFindings(step, profile, t, memory_gaps)) out.push_back(std::move(f));
  return out;
}

}  // namespace trainscope::analysis
