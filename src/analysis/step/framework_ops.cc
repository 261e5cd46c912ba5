#include "analysis/step/framework_ops.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "analysis/motifs/fingerprint_match.h"
#include "analysis/motifs/motif_sequence.h"
#include "core/rule_file.h"

namespace trainscope::analysis {
namespace {

constexpr std::string_view kOpsModulePrefix = "nn.Module: ";
constexpr size_t kOwnedKernelsKept = 4;

// What the attribution of fingerprints calls a framework op: ProfilerStep#N
// is a cpu_op-category annotation, not an operator.
bool IsOwningFrameworkOp(std::string_view category, std::string_view name) {
  if (name.starts_with("ProfilerStep#")) return false;
  return category == "cpu_op" || category == "operator" || name.starts_with("aten::") ||
         name.starts_with("npu::");
}

// "Qwen2RMSNorm_12" -> "Qwen2RMSNorm": torch numbers a class's instances.
std::string_view ModuleClassOf(std::string_view instance) {
  const size_t underscore = instance.rfind('_');
  if (underscore == std::string_view::npos || underscore + 1 == instance.size()) return instance;
  for (size_t k = underscore + 1; k < instance.size(); ++k) {
    if (instance[k] < '0' || instance[k] > '9') return instance;
  }
  return instance.substr(0, underscore);
}

// The owners of one launcher, found once per launcher.
struct LaunchOwners {
  int32_t op = model::kNoIndex;      // outermost framework op
  int32_t module = model::kNoIndex;  // innermost nn.Module frame
};

// One owner (an op name or a module class) while the step is read.
struct OwnerAccumulator {
  FrameworkOpStat stat;
  std::map<int32_t, std::vector<uint32_t>> rows_of_call;  // host op -> device rows
  // Keyed by string ids of the profile: a step has 10^5-10^6 kernels, and
  // few distinct names.
  std::unordered_map<StringId, OwnedKernel> kernels;  // by kernel name
  std::unordered_map<StringId, int64_t> ns_of_shapes;
};

void AddOwnedRow(const model::RankProfile& profile, uint32_t row, int32_t call, StringId shapes,
                 OwnerAccumulator* owner) {
  const model::DeviceEvents& events = profile.device_events;
  FrameworkOpStat& stat = owner->stat;
  stat.kernel_ns += events.duration_ns[row];
  std::vector<uint32_t>& rows_of_call = owner->rows_of_call[call];
  if (shapes != StringPool::kEmpty) owner->ns_of_shapes[shapes] += events.duration_ns[row];
  // Copies and memsets count in the time, not as kernels: cuBLAS's split-K
  // workspace memset would make every GEMM two "kernels" on one GPU only.
  const model::ActivityKind kind = events.kind[row];
  if (kind != model::ActivityKind::kCompute && kind != model::ActivityKind::kCommunication) return;
  ++stat.kernels;
  rows_of_call.push_back(row);
  OwnedKernel& kernel = owner->kernels[events.name[row]];
  if (kernel.count == 0) {
    kernel.name = std::string(profile.strings.Get(events.name[row]));
    kernel.op_type = std::string(profile.strings.Get(events.op_type[row]));
  }
  ++kernel.count;
  kernel.total_ns += events.duration_ns[row];
}

// The fingerprints matched on |rows| (one call's device events, in start
// order): the chain a decomposed op runs as.
std::vector<std::string> MatchCall(const model::RankProfile& profile,
                                   const std::vector<uint32_t>& rows,
                                   const FingerprintLibrary& library, FingerprintAcceptMemo* memo) {
  const model::DeviceEvents& events = profile.device_events;
  KernelSequence seq;
  for (const uint32_t row : rows) {
    if (events.kind[row] != model::ActivityKind::kCompute) continue;  // chains are compute
    seq.rows.push_back(row);
    seq.tokens.push_back(static_cast<int32_t>(seq.canonical.size()));
    const std::string_view op = profile.strings.Get(events.op_type[row]);
    seq.canonical.push_back(library.Canonical(op));
    seq.name.push_back(AsciiLower(profile.strings.Get(events.name[row])));
    seq.display.emplace_back(op);
    seq.keyed_by_name.push_back(events.op_type_derived[row]);
  }
  std::vector<std::string> ids;
  for (const FingerprintInstance& match : MatchFingerprints(seq, library, memo)) {
    const std::string& id = library.fingerprints()[static_cast<size_t>(match.fingerprint)].id;
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  return ids;
}

// MatchCall through |memo|: the match reads each compute kernel's op type
// and name only, so those ids, in order, are the chain's key.
std::vector<std::string> FingerprintsOfCall(const model::RankProfile& profile,
                                            const std::vector<uint32_t>& rows,
                                            const FingerprintLibrary& library,
                                            FrameworkOpsMemo* memo) {
  if (memo != nullptr && &memo->library() != &library) memo = nullptr;  // another library's
  if (memo == nullptr) return MatchCall(profile, rows, library, nullptr);
  const model::DeviceEvents& events = profile.device_events;
  std::string key;
  key.reserve(rows.size() * 2 * sizeof(StringId));
  auto put = [&key](StringId id) { key.append(reinterpret_cast<const char*>(&id), sizeof(id)); };
  for (const uint32_t row : rows) {
    if (events.kind[row] != model::ActivityKind::kCompute) continue;
    put(events.op_type[row]);
    put(events.name[row]);
  }
  return memo->Of(key, [&] { return MatchCall(profile, rows, library, memo->accept()); });
}

std::vector<FrameworkOpStat> FinishOwners(const model::RankProfile& profile,
                                          std::map<std::string, OwnerAccumulator>&& owners,
                                          const FingerprintLibrary& library,
                                          FrameworkOpsMemo* memo) {
  std::vector<FrameworkOpStat> out;
  out.reserve(owners.size());
  for (auto& [name, owner] : owners) {
    FrameworkOpStat stat = std::move(owner.stat);
    stat.name = name;
    stat.calls = static_cast<int64_t>(owner.rows_of_call.size());
    for (auto& [kernel_name, kernel] : owner.kernels) stat.top_kernels.push_back(kernel);
    // Ties by name: the hash map's order is not the same run to run.
    std::sort(stat.top_kernels.begin(), stat.top_kernels.end(),
              [](const OwnedKernel& a, const OwnedKernel& b) {
                return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
              });
    if (stat.top_kernels.size() > kOwnedKernelsKept) stat.top_kernels.resize(kOwnedKernelsKept);
    stat.shape_variants = static_cast<int32_t>(owner.ns_of_shapes.size());
    int64_t best = -1;
    for (const auto& [shapes, ns] : owner.ns_of_shapes) {
      const std::string_view text = profile.strings.Get(shapes);
      if (ns > best || (ns == best && text < stat.shapes)) {
        best = ns;
        stat.shapes = std::string(text);
      }
    }
    // The call with the most kernels (the first such: map order is the
    // host op order, i.e. time order on a thread) shows the whole chain.
    const std::vector<uint32_t>* widest = nullptr;
    for (const auto& [call, rows] : owner.rows_of_call) {
      if (widest == nullptr || rows.size() > widest->size()) widest = &rows;
    }
    if (widest != nullptr && widest->size() > 1) {
      stat.fingerprints = FingerprintsOfCall(profile, *widest, library, memo);
    }
    out.push_back(std::move(stat));
  }
  std::stable_sort(out.begin(), out.end(), [](const FrameworkOpStat& a, const FrameworkOpStat& b) {
    return a.kernel_ns > b.kernel_ns;
  });
  return out;
}

}  // namespace

std::optional<FrameworkOps> ComputeFrameworkOps(const model::RankProfile& profile, int32_t step,
                                                const FingerprintLibrary& library,
                                                FrameworkOpsMemo* memo) {
  const model::DeviceEvents& events = profile.device_events;
  const model::HostOps& host = profile.timeline.host_ops;
  if (!profile.timeline.present || host.size() == 0) return std::nullopt;
  std::unordered_map<int32_t, LaunchOwners> owners_of_launcher;
  auto owners_of = [&](int32_t launcher) -> const LaunchOwners& {
    auto [it, fresh] = owners_of_launcher.try_emplace(launcher);
    if (!fresh) return it->second;
    LaunchOwners& owners = it->second;
    int32_t depth = 0;
    for (int32_t o = launcher;
         o != model::kNoIndex && o >= 0 && static_cast<size_t>(o) < host.size() && depth < 512;
         o = host.parent[static_cast<size_t>(o)], ++depth) {
      const auto category = profile.strings.Get(host.category[static_cast<size_t>(o)]);
      const auto name = profile.strings.Get(host.name[static_cast<size_t>(o)]);
      if (IsOwningFrameworkOp(category, name)) owners.op = o;  // the last one met is outermost
      if (owners.module == model::kNoIndex && category == "python_function" &&
          name.starts_with(kOpsModulePrefix)) {
        owners.module = o;
      }
    }
    return owners;
  };

  FrameworkOps out;
  std::map<std::string, OwnerAccumulator> ops;
  std::map<std::string, OwnerAccumulator> modules;
  // Owner of a host op name id (std::map nodes stay put).
  std::unordered_map<StringId, OwnerAccumulator*> op_of_name, module_of_name;
  for (const uint32_t row : events.RowsOf(step)) {
    ++out.kernels;
    out.kernel_ns += events.duration_ns[row];
    const int32_t launcher = events.launcher[row];
    if (launcher == model::kNoIndex) continue;
    const LaunchOwners& owners = owners_of(launcher);
    if (owners.op != model::kNoIndex) {
      const auto op = static_cast<size_t>(owners.op);
      ++out.owned_kernels;
      out.owned_ns += events.duration_ns[row];
      OwnerAccumulator*& owner = op_of_name[host.name[op]];
      if (owner == nullptr) owner = &ops[std::string(profile.strings.Get(host.name[op]))];
      AddOwnedRow(profile, row, owners.op, host.input_dims[op], owner);
    }
    if (owners.module != model::kNoIndex) {
      const StringId name = host.name[static_cast<size_t>(owners.module)];
      OwnerAccumulator*& owner = module_of_name[name];
      if (owner == nullptr) {
        const std::string_view instance = profile.strings.Get(name).substr(kOpsModulePrefix.size());
        owner = &modules[std::string(ModuleClassOf(instance))];
      }
      AddOwnedRow(profile, row, owners.module, StringPool::kEmpty, owner);
    }
  }
  if (out.owned_kernels == 0) return std::nullopt;
  out.ops = FinishOwners(profile, std::move(ops), library, memo);
  out.modules = FinishOwners(profile, std::move(modules), library, memo);
  return out;
}

}  // namespace trainscope::analysis
