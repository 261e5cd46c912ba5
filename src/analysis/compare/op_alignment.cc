#include "analysis/compare/op_alignment.h"

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace trainscope::analysis {
namespace {

// One kernel per call on one side, at least this many on the other: the
// op (or module) was fused on the first side only.
constexpr double kFusedMaxKernelsPerCall = 1.05;
constexpr double kUnfusedMinKernelsPerCall = 2.0;

const char* AlignedSideName(bool is_base) { return is_base ? "base" : "new"; }

// The remedy text of |fingerprint| for a run on |platform|: its Ascend or
// GPU part when it has one, else the whole remedy.
std::string PlatformRemedyOf(const Fingerprint& fingerprint, model::Platform platform) {
  if (platform == model::Platform::kAscend && !fingerprint.remedy_ascend.empty())
    return fingerprint.remedy_ascend;
  const bool gpu = platform == model::Platform::kCuda || platform == model::Platform::kRocm ||
                   platform == model::Platform::kGpu;
  if (gpu && !fingerprint.remedy_gpu.empty()) return fingerprint.remedy_gpu;
  return fingerprint.remedy;
}

// Sets the porting finding of |op| when one side runs it fused.
void FindFusion(const FrameworkOpStat& base, const FrameworkOpStat& next,
                model::Platform base_platform, model::Platform next_platform,
                const FingerprintLibrary& library, AlignedOp* op) {
  const std::optional<double> b = op->base_kernels_per_call();
  const std::optional<double> n = op->next_kernels_per_call();
  if (!b || !n) return;
  bool fused_is_base = false;
  if (*b <= kFusedMaxKernelsPerCall && *n >= kUnfusedMinKernelsPerCall) {
    fused_is_base = true;
  } else if (!(*n <= kFusedMaxKernelsPerCall && *b >= kUnfusedMinKernelsPerCall)) {
    return;
  }
  const FrameworkOpStat& fused = fused_is_base ? base : next;
  const FrameworkOpStat& unfused = fused_is_base ? next : base;
  if (fused.top_kernels.empty()) return;
  op->fused_side = AlignedSideName(fused_is_base);
  op->fused_kernel = fused.top_kernels.front().name;
  for (const OwnedKernel& k : unfused.top_kernels) {
    if (!op->unfused_kernels.empty()) op->unfused_kernels += ", ";
    op->unfused_kernels += k.op_type.empty() ? k.name : k.op_type;
  }
  for (const std::string& id : unfused.fingerprints) {
    const Fingerprint* fingerprint = library.Find(id);
    if (fingerprint == nullptr || fingerprint->action != FingerprintAction::kFuse) continue;
    op->fingerprint = id;
    op->remedy = PlatformRemedyOf(*fingerprint, fused_is_base ? next_platform : base_platform);
    break;
  }
}

std::vector<AlignedOp> PairOwners(const std::vector<FrameworkOpStat>& base,
                                  const std::vector<FrameworkOpStat>& next,
                                  model::Platform base_platform, model::Platform next_platform,
                                  const FingerprintLibrary& library) {
  std::map<std::string_view, std::pair<const FrameworkOpStat*, const FrameworkOpStat*>> by_name;
  for (const FrameworkOpStat& op : base) by_name[op.name].first = &op;
  for (const FrameworkOpStat& op : next) by_name[op.name].second = &op;
  static const FrameworkOpStat kAbsent;
  std::vector<AlignedOp> out;
  out.reserve(by_name.size());
  for (const auto& [name, sides] : by_name) {
    const FrameworkOpStat& b = sides.first != nullptr ? *sides.first : kAbsent;
    const FrameworkOpStat& n = sides.second != nullptr ? *sides.second : kAbsent;
    AlignedOp op;
    op.name = std::string(name);
    op.base_shapes = b.shapes;
    op.next_shapes = n.shapes;
    op.base_calls = b.calls;
    op.next_calls = n.calls;
    op.base_kernels = b.kernels;
    op.next_kernels = n.kernels;
    op.base_ns = b.kernel_ns;
    op.next_ns = n.kernel_ns;
    if (!b.top_kernels.empty()) op.base_top_kernel = b.top_kernels.front().name;
    if (!n.top_kernels.empty()) op.next_top_kernel = n.top_kernels.front().name;
    FindFusion(b, n, base_platform, next_platform, library, &op);
    out.push_back(std::move(op));
  }
  std::stable_sort(out.begin(), out.end(), [](const AlignedOp& a, const AlignedOp& b) {
    return std::max(a.base_ns, a.next_ns) > std::max(b.base_ns, b.next_ns);
  });
  return out;
}

}  // namespace

std::optional<OpAlignment> AlignOperators(const StepDistribution* base,
                                          model::Platform base_platform,
                                          const StepDistribution* next,
                                          model::Platform next_platform,
                                          const FingerprintLibrary& library, std::string* why) {
  const bool base_has = base != nullptr && base->framework_ops.has_value();
  const bool next_has = next != nullptr && next->framework_ops.has_value();
  if (!base_has || !next_has) {
    if (why != nullptr) {
      const char* sides = !base_has && !next_has ? "neither side" : !base_has ? "BASE" : "NEW";
      *why = std::string(sides) +
             " has no kernel linked to the framework op that launched it (a trace with CPU ops "
             "and launch flows: torch.profiler with ProfilerActivity.CPU; with_modules / "
             "with_stack for the module view)";
    }
    return std::nullopt;
  }
  const FrameworkOps& b = *base->framework_ops;
  const FrameworkOps& n = *next->framework_ops;
  OpAlignment out;
  out.ops = PairOwners(b.ops, n.ops, base_platform, next_platform, library);
  out.modules = PairOwners(b.modules, n.modules, base_platform, next_platform, library);
  out.base_step_ns = b.kernel_ns;
  out.next_step_ns = n.kernel_ns;
  out.base_owned_ns = b.owned_ns;
  out.next_owned_ns = n.owned_ns;
  for (const AlignedOp& op : out.ops) {
    if (op.in_base() && !op.in_next()) ++out.base_only;
    if (op.in_next() && !op.in_base()) ++out.next_only;
  }
  return out;
}

}  // namespace trainscope::analysis
