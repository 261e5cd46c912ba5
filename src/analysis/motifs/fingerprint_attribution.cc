#include "analysis/motifs/fingerprint_attribution.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainscope::analysis {
namespace {

constexpr int64_t kMatchToleranceNs = 1000;

bool IsPythonFrame(std::string_view category) { return category == "python_function"; }

bool IsAtenOp(std::string_view name) {
  return name.substr(0, 6) == "aten::" || name.substr(0, 5) == "npu::";
}

// ProfilerStep#N is a cpu_op-category annotation, not an operator.
bool IsFrameworkOp(std::string_view category, std::string_view name) {
  if (name.substr(0, 13) == "ProfilerStep#") return false;
  return category == "cpu_op" || category == "operator" || IsAtenOp(name);
}

// A frame of user code, not of the framework's own module plumbing.
bool IsUserFrame(std::string_view name) {
  return name.find(".py(") != std::string_view::npos &&
         name.find("torch/") == std::string_view::npos &&
         name.find("site-packages") == std::string_view::npos;
}

// The host ops from |op| up to the root (deepest first), into |chain|
// (reused: a chain is read for every kernel a motif instance launched).
void Ancestors(const model::HostOps& ops, int32_t op, std::vector<int32_t>* chain) {
  chain->clear();
  for (int32_t o = op; o != model::kNoIndex && chain->size() < 256; o = ops.parent[o])
    chain->push_back(o);
}

// The operator that launched a kernel, given its launcher's ancestors: in
// the run of framework ops nearest the launcher, the aten::/npu:: one
// (torch_npu launches through an inner aclnn* op, PyTorch through aten ops),
// else the innermost. kNoIndex when no framework op is in the chain.
int32_t LaunchingOperator(const model::RankProfile& profile, const std::vector<int32_t>& chain) {
  const auto& ops = profile.timeline.host_ops;
  int32_t member = model::kNoIndex;
  for (int32_t o : chain) {
    const auto name = profile.strings.Get(ops.name[o]);
    if (!IsFrameworkOp(profile.strings.Get(ops.category[o]), name)) {
      if (member != model::kNoIndex) break;
      continue;
    }
    if (member == model::kNoIndex) member = o;
    if (IsAtenOp(name)) return o;
  }
  return member;
}

// Names the chain from the common ancestors of its launchers (deepest
// first): the innermost module or framework op, and the innermost user
// source line (else any source line).
void NameFromAncestors(const model::RankProfile& profile, const std::vector<int32_t>& common,
                       HostAttribution* out) {
  const auto& ops = profile.timeline.host_ops;
  for (int32_t o : common) {
    const auto category = profile.strings.Get(ops.category[o]);
    const auto name = profile.strings.Get(ops.name[o]);
    if (out->framework_op.empty() &&
        ((IsPythonFrame(category) && name.substr(0, 11) == "nn.Module: ") ||
         IsFrameworkOp(category, name))) {
      out->framework_op = std::string(name);
    }
    if (out->source.empty() && IsPythonFrame(category) && IsUserFrame(name))
      out->source = std::string(name);
  }
  if (!out->source.empty()) return;
  // Without Python frames (with_stack off, or torch_npu's trace_view.json,
  // which carries each operator's stack as its "Call stack" argument
  // instead): the innermost user frame of an enclosing op's call stack.
  for (int32_t o : common) {
    const auto source = profile.strings.Get(ops.source[o]);
    if (!source.empty()) {
      out->source = std::string(model::InnermostUserFrame(source));
      return;
    }
  }
  for (int32_t o : common) {
    const auto name = profile.strings.Get(ops.name[o]);
    if (IsPythonFrame(profile.strings.Get(ops.category[o])) &&
        name.find(".py(") != std::string_view::npos) {
      out->source = std::string(name);
      return;
    }
  }
}

// The user frames (innermost first) of the nearest op in |chain| (a
// launcher's ancestors, deepest first) that has a call stack; "" if none.
std::string_view StackOf(const model::RankProfile& profile, const std::vector<int32_t>& chain) {
  const auto& ops = profile.timeline.host_ops;
  for (int32_t o : chain) {
    const auto frames = profile.strings.Get(ops.source[o]);
    if (!frames.empty()) return frames;
  }
  return {};
}

std::vector<std::string_view> FramesOf(std::string_view stack) {
  std::vector<std::string_view> frames;
  while (!stack.empty()) {
    const size_t end = stack.find('\n');
    frames.push_back(stack.substr(0, end));
    if (end == std::string_view::npos) break;
    stack.remove_prefix(end + 1);
  }
  return frames;
}

// The innermost user frame every stack of |stacks| (one per chain member
// with a call stack) shares: stacks are aligned at their outermost frame
// (the same thread's caller), and the shared tail's first frame is the one
// nearest the ops. A member called from another line of the same function
// shares only the frames above it. "" when they share none.
std::string SharedInnermostFrame(const std::vector<std::string_view>& stacks) {
  std::vector<std::string_view> shared = FramesOf(stacks.front());
  for (size_t i = 1; i < stacks.size() && !shared.empty(); ++i) {
    const std::vector<std::string_view> frames = FramesOf(stacks[i]);
    size_t same = 0;
    while (same < shared.size() && same < frames.size() &&
           shared[shared.size() - 1 - same] == frames[frames.size() - 1 - same]) {
      ++same;
    }
    shared.erase(shared.begin(), shared.end() - static_cast<std::ptrdiff_t>(same));
  }
  return shared.empty() ? std::string() : std::string(shared.front());
}

}  // namespace

std::string_view OperatorKeyOfKernel(std::string_view kernel_name, std::string_view op_type) {
  if (kernel_name.substr(0, 5) == "aclnn") return kernel_name.substr(0, kernel_name.find('_'));
  return op_type;
}

HostAttributor::HostAttributor(const model::RankProfile& profile) : profile_(profile) {
  // Per operator name, the source line it is called from most often.
  std::map<std::pair<StringId, StringId>, int64_t> calls;
  for (const model::OperatorDetailRow& row : profile.operator_details) {
    if (row.source != StringPool::kEmpty) ++calls[{row.name, row.source}];
  }
  std::unordered_map<StringId, int64_t> best_calls;
  for (const auto& [key, count] : calls) {
    int64_t& best = best_calls[key.first];
    if (count <= best) continue;
    best = count;
    source_of_operator_[profile.strings.Get(key.first)] = profile.strings.Get(key.second);
  }
  const auto& tl = profile.timeline;
  if (!tl.present) return;
  const model::DeviceEvents& events = profile.device_events;
  // A sparse column stores its rows once one has a launcher.
  available_ = events.launcher.stored() &&
               std::any_of(events.launcher.values().begin(), events.launcher.values().end(),
                           [](int32_t l) { return l != model::kNoIndex; });
  for (const model::FwdBwdLink& link : tl.fwdbwd)
    forward_of_.emplace(link.backward_op, link.forward_op);
}

HostAttribution HostAttributor::FromForward(const std::vector<int32_t>& backward_chain) const {
  HostAttribution out;
  const auto& ops = profile_.timeline.host_ops;
  for (int32_t o : backward_chain) {
    auto it = forward_of_.find(o);
    if (it == forward_of_.end()) continue;
    std::string module;
    for (int32_t f = it->second; f != model::kNoIndex; f = ops.parent[f]) {
      const auto category = profile_.strings.Get(ops.category[f]);
      const auto name = profile_.strings.Get(ops.name[f]);
      if (!IsPythonFrame(category)) continue;
      if (module.empty() && name.substr(0, 11) == "nn.Module: ") module = std::string(name);
      if (out.source.empty() && IsUserFrame(name)) out.source = std::string(name);
    }
    if (!module.empty()) out.framework_op = "backward of " + module;
    return out;
  }
  return out;
}

int32_t HostAttributor::Launcher(int64_t start_ns) const {
  const model::DeviceEvents& acts = profile_.device_events;
  auto it =
      std::lower_bound(acts.start_ns.begin(), acts.start_ns.end(), start_ns - kMatchToleranceNs);
  int32_t best = model::kNoIndex;
  int64_t best_delta = INT64_MAX;
  for (size_t i = static_cast<size_t>(it - acts.start_ns.begin());
       i < acts.size() && acts.start_ns[i] <= start_ns + kMatchToleranceNs; ++i) {
    if (acts.launcher[i] == model::kNoIndex || acts.kind[i] != model::ActivityKind::kCompute)
      continue;
    const int64_t delta = std::abs(acts.start_ns[i] - start_ns);
    if (delta < best_delta) {
      best_delta = delta;
      best = acts.launcher[i];
    }
  }
  return best;
}

HostAttribution HostAttributor::Attribute(const std::vector<int64_t>& kernel_starts_ns) const {
  HostAttribution out = available_ ? FromLaunchers(kernel_starts_ns) : HostAttribution();
  if (out.source.empty() && !source_of_operator_.empty()) {
    FromOperatorDetails(kernel_starts_ns, &out);
  }
  return out;
}

void HostAttributor::FromOperatorDetails(const std::vector<int64_t>& kernel_starts_ns,
                                         HostAttribution* out) const {
  const model::DeviceEvents& events = profile_.device_events;
  std::vector<std::string_view> operators;                // distinct, in chain order
  std::vector<std::pair<std::string_view, int>> sources;  // in chain order, with votes
  for (int64_t start : kernel_starts_ns) {
    // The compute kernel starting at |start| (rows are sorted by start).
    auto row = static_cast<size_t>(
        std::lower_bound(events.start_ns.begin(), events.start_ns.end(), start) -
        events.start_ns.begin());
    while (row < events.size() && events.start_ns[row] == start &&
           events.kind[row] != model::ActivityKind::kCompute) {
      ++row;
    }
    if (row >= events.size() || events.start_ns[row] != start) continue;
    const std::string_view key = OperatorKeyOfKernel(profile_.strings.Get(events.name[row]),
                                                     profile_.strings.Get(events.op_type[row]));
    if (std::find(operators.begin(), operators.end(), key) == operators.end()) {
      operators.push_back(key);
    }
    auto source = source_of_operator_.find(key);
    if (source == source_of_operator_.end()) continue;
    auto vote = std::find_if(sources.begin(), sources.end(),
                             [&](const auto& s) { return s.first == source->second; });
    if (vote == sources.end()) {
      sources.emplace_back(source->second, 1);
    } else {
      ++vote->second;
    }
  }
  if (sources.empty()) return;
  // max_element keeps the first of equal counts: the earliest kernel's line.
  out->source = std::string(
      std::max_element(sources.begin(), sources.end(), [](const auto& a, const auto& b) {
        return a.second < b.second;
      })->first);
  if (!out->framework_op.empty()) return;
  for (size_t i = 0; i < operators.size() && i < 4; ++i) {
    // Appended piece by piece: `"+" + std::string(...)` makes GCC 12 at -O3
    // warn (-Wrestrict, a false positive in libstdc++'s operator+).
    if (i > 0) out->framework_op += '+';
    out->framework_op += operators[i];
  }
}

HostAttribution HostAttributor::FromLaunchers(const std::vector<int64_t>& kernel_starts_ns) const {
  HostAttribution out;
  const auto& ops = profile_.timeline.host_ops;
  // The lowest common ancestor of the launchers: the code that issued the
  // whole chain. Host ops nest strictly per thread, so a parent walk is it.
  std::vector<int32_t> common;
  std::vector<int32_t> first_chain;
  std::vector<std::string> member_ops;
  std::vector<std::string_view> member_stacks;  // distinct, of members with a call stack
  bool first = true;
  std::vector<int32_t> chain;
  for (int64_t start : kernel_starts_ns) {
    const int32_t launcher = Launcher(start);
    if (launcher == model::kNoIndex) continue;
    Ancestors(ops, launcher, &chain);
    const std::string_view stack = StackOf(profile_, chain);
    if (!stack.empty() &&
        std::find(member_stacks.begin(), member_stacks.end(), stack) == member_stacks.end()) {
      member_stacks.push_back(stack);
    }
    const int32_t member = LaunchingOperator(profile_, chain);
    if (member != model::kNoIndex) {
      const auto name = profile_.strings.Get(ops.name[member]);
      if (std::find(member_ops.begin(), member_ops.end(), name) == member_ops.end() &&
          member_ops.size() < 4) {
        member_ops.emplace_back(name);
      }
    }
    if (first) {
      first_chain = chain;
      common = chain;
      first = false;
      continue;
    }
    // Keep the part of |common| (deepest first) that is also in |chain|.
    auto in_chain = [&](int32_t o) {
      return std::find(chain.begin(), chain.end(), o) != chain.end();
    };
    auto keep = std::find_if(common.begin(), common.end(), in_chain);
    common.erase(common.begin(), keep);
  }
  if (first) return out;
  NameFromAncestors(profile_, common, &out);
  if (out.source.empty() && !member_stacks.empty()) {
    // No op encloses the chain (torch_npu's trace_view.json and the .db
    // export carry each op's stack, not Python frames): the frame the
    // members' own stacks share.
    out.source = SharedInnermostFrame(member_stacks);
    if (out.source.empty()) out.source_note = "its ops' call stacks share no user frame";
  }
  if (out.source.empty() && !forward_of_.empty()) {
    // Backward kernels run on the autograd thread without Python frames; the
    // fwdbwd flow leads to the forward op, whose frames name the code.
    HostAttribution forward = FromForward(first_chain);
    if (!forward.source.empty()) {
      out.source = forward.source;
      out.source_note.clear();
      if (!forward.framework_op.empty()) out.framework_op = forward.framework_op;
    }
  }
  if (out.framework_op.empty()) {
    for (const auto& op : member_ops)
      out.framework_op += (out.framework_op.empty() ? "" : "+") + op;
  }
  return out;
}

}  // namespace trainscope::analysis
