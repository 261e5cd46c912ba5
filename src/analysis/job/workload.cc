#include "analysis/job/workload.h"

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <vector>

#include "core/string_pool.h"

namespace trainscope::analysis {
namespace {

enum class WorkloadSign : uint8_t {
  kNone,
  kBackward,
  kOptimizer,
  kGraphReplay,
  kServing,
  kKvCache,
  kCount,
};

WorkloadSign SignOfHostOpName(std::string_view name) {
  if (name.find("Backward") != std::string_view::npos) return WorkloadSign::kBackward;
  if (name.starts_with("Optimizer.step")) return WorkloadSign::kOptimizer;
  if (name == "cudaGraphLaunch" || name == "hipGraphLaunch") return WorkloadSign::kGraphReplay;
  for (std::string_view serving : {"vllm/", "sglang/"}) {
    if (name.find(serving) != std::string_view::npos) return WorkloadSign::kServing;
  }
  // A KV cache written during the forward pass (with_stack frames): Hugging
  // Face's DynamicCache.update (transformers/cache_utils.py) and generate()
  // (transformers/generation/). A training forward does not keep one: the
  // training loops turn use_cache off, and a trace with a backward op is
  // training before this sign is read.
  for (std::string_view cache : {"transformers/cache_utils.py", "transformers/generation/"}) {
    if (name.find(cache) != std::string_view::npos) return WorkloadSign::kKvCache;
  }
  return WorkloadSign::kNone;
}

// The number of host ops of each sign, each distinct name classified once.
using WorkloadSignCounts = std::array<size_t, static_cast<size_t>(WorkloadSign::kCount)>;

WorkloadSignCounts CountWorkloadSigns(const model::RankProfile& profile) {
  WorkloadSignCounts counts{};
  const model::HostOps& ops = profile.timeline.host_ops;
  constexpr uint8_t kNotClassified = 0xff;
  std::vector<uint8_t> sign_of(profile.strings.size(), kNotClassified);
  for (size_t i = 0; i < ops.size(); ++i) {
    const StringId name = ops.name[i];
    if (name >= sign_of.size()) continue;
    if (sign_of[name] == kNotClassified) {
      sign_of[name] = static_cast<uint8_t>(SignOfHostOpName(profile.strings.Get(name)));
    }
    ++counts[sign_of[name]];
  }
  return counts;
}

// Gradient kernels of an Ascend profile (LayerNormGrad, SiluGrad...).
size_t CountGradientKernelTypes(const model::RankProfile& profile) {
  const model::DeviceEvents& events = profile.device_events;
  std::vector<uint8_t> seen(profile.strings.size(), 0);
  size_t types = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const StringId type = events.op_type[i];
    if (type >= seen.size() || seen[type] != 0) continue;
    seen[type] = 1;
    if (profile.strings.Get(type).ends_with("Grad")) ++types;
  }
  return types;
}

}  // namespace

Workload DetectWorkload(const model::RankProfile& profile) {
  const WorkloadSignCounts signs = CountWorkloadSigns(profile);
  const size_t backward = signs[static_cast<size_t>(WorkloadSign::kBackward)];
  const size_t optimizer = signs[static_cast<size_t>(WorkloadSign::kOptimizer)];
  const size_t graphs = signs[static_cast<size_t>(WorkloadSign::kGraphReplay)];
  const size_t serving = signs[static_cast<size_t>(WorkloadSign::kServing)];
  const size_t kv_cache = signs[static_cast<size_t>(WorkloadSign::kKvCache)];
  const size_t fwdbwd = profile.timeline.fwdbwd.size();
  const size_t host_ops = profile.timeline.host_ops.size();
  Workload out;
  if (backward > 0 || optimizer > 0 || fwdbwd > 0) {
    out.kind = "training";
    out.evidence = fmt::format("{} backward ops, {} forward-backward links, {} optimizer steps",
                               backward, fwdbwd, optimizer);
    return out;
  }
  const size_t grad_types = host_ops == 0 ? CountGradientKernelTypes(profile) : 0;
  if (grad_types > 0) {
    out.kind = "training";
    out.evidence = fmt::format("{} gradient kernel types (*Grad)", grad_types);
    return out;
  }
  if (host_ops == 0) {
    out.evidence = "no host ops recorded and no gradient kernels";
    return out;
  }
  if (graphs > 0 || serving > 0 || kv_cache > 0) {
    out.kind = "inference";
    out.evidence = fmt::format(
        "no backward or optimizer op among {} host ops; {} CUDA/HIP graph replays; {} serving "
        "framework frames (vllm/, sglang/); {} KV-cache frames (transformers cache_utils, "
        "generation)",
        host_ops, graphs, serving, kv_cache);
    return out;
  }
  out.evidence = fmt::format(
      "no backward or optimizer op among {} host ops, and no graph replay, serving framework or "
      "KV cache",
      host_ops);
  return out;
}

bool IsTrainingOnlyFinding(std::string_view id) {
  for (std::string_view training :
       {"memory-peak", "oom-risk", "pseudo-overlap", "unfused-optimizer", "per-tensor-grad-clip"}) {
    if (id == training) return true;
  }
  return false;
}

}  // namespace trainscope::analysis
