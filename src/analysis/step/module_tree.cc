#include "analysis/step/module_tree.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace trainscope::analysis {
namespace {

constexpr std::string_view kModulePrefix = "nn.Module: ";

// The module of a host op's enclosing calls, as a path of nodes, interned
// once per launcher (a step has 10^5 kernels but few launch sites' chains).
class TreeBuilder {
 public:
  explicit TreeBuilder(const model::RankProfile& profile) : profile_(profile) {}

  // The innermost module node of |launcher|'s chain, -1 when none.
  int32_t NodeOf(int32_t launcher) {
    auto [it, fresh] = node_of_launcher_.try_emplace(launcher, -1);
    if (!fresh) return it->second;
    const model::HostOps& ops = profile_.timeline.host_ops;
    std::vector<int32_t> modules;  // innermost first
    for (int32_t o = launcher; o != model::kNoIndex && o >= 0 &&
                               static_cast<size_t>(o) < ops.size() && modules.size() < 512;
         o = ops.parent[o]) {
      if (profile_.strings.Get(ops.category[o]) != "python_function") continue;
      if (profile_.strings.Get(ops.name[o]).substr(0, kModulePrefix.size()) == kModulePrefix)
        modules.push_back(o);
    }
    int32_t node = -1;
    for (auto m = modules.rbegin(); m != modules.rend(); ++m) {
      const std::string_view name = profile_.strings.Get(ops.name[*m]).substr(kModulePrefix.size());
      auto [child, added] =
          children_.try_emplace({node, std::string(name)}, static_cast<int32_t>(nodes_.size()));
      if (added) nodes_.push_back(ModuleNode{std::string(name), node});
      node = child->second;
      if (calls_seen_.insert(*m).second) {
        ++nodes_[static_cast<size_t>(node)].calls;
        nodes_[static_cast<size_t>(node)].host_ns += ops.duration_ns[*m];
      }
    }
    it->second = node;
    return node;
  }

  std::vector<ModuleNode>& nodes() { return nodes_; }

 private:
  const model::RankProfile& profile_;
  std::unordered_map<int32_t, int32_t> node_of_launcher_;
  std::map<std::pair<int32_t, std::string>, int32_t> children_;
  std::unordered_set<int32_t> calls_seen_;
  std::vector<ModuleNode> nodes_;
};

// |nodes| in pre-order (children in creation order, i.e. first kernel),
// parents remapped.
std::vector<ModuleNode> PreOrder(std::vector<ModuleNode>&& nodes) {
  std::vector<std::vector<int32_t>> children(nodes.size());
  std::vector<int32_t> roots;
  for (size_t n = 0; n < nodes.size(); ++n) {
    const int32_t parent = nodes[n].parent;
    (parent < 0 ? roots : children[static_cast<size_t>(parent)]).push_back(static_cast<int32_t>(n));
  }
  std::vector<ModuleNode> out;
  out.reserve(nodes.size());
  std::vector<int32_t> new_index(nodes.size(), -1);
  std::vector<int32_t> stack(roots.rbegin(), roots.rend());
  while (!stack.empty()) {
    const int32_t n = stack.back();
    stack.pop_back();
    new_index[static_cast<size_t>(n)] = static_cast<int32_t>(out.size());
    ModuleNode node = std::move(nodes[static_cast<size_t>(n)]);
    if (node.parent >= 0) node.parent = new_index[static_cast<size_t>(node.parent)];
    out.push_back(std::move(node));
    const std::vector<int32_t>& kids = children[static_cast<size_t>(n)];
    stack.insert(stack.end(), kids.rbegin(), kids.rend());
  }
  return out;
}

}  // namespace

std::optional<ModuleTree> ComputeModuleTree(const model::RankProfile& profile, int32_t step,
                                            const std::vector<Motif>& motifs) {
  if (!profile.timeline.present || profile.timeline.host_ops.size() == 0) return std::nullopt;
  const model::DeviceEvents& events = profile.device_events;
  TreeBuilder builder(profile);
  ModuleTree tree;
  std::vector<std::pair<int32_t, uint32_t>> placed;  // (innermost node, row)
  for (const uint32_t row : events.RowsOf(step)) {
    ++tree.kernels;
    const int32_t launcher = events.launcher[row];
    const int32_t node = launcher == model::kNoIndex ? -1 : builder.NodeOf(launcher);
    if (node < 0) {
      ++tree.outside_kernels;
      tree.outside_ns += events.duration_ns[row];
      continue;
    }
    placed.emplace_back(node, row);
  }
  if (placed.empty()) return std::nullopt;
  std::vector<ModuleNode>& nodes = builder.nodes();
  for (const auto& [node, row] : placed) {
    for (int32_t n = node; n >= 0; n = nodes[static_cast<size_t>(n)].parent) {
      ++nodes[static_cast<size_t>(n)].kernels;
      nodes[static_cast<size_t>(n)].kernel_ns += events.duration_ns[row];
    }
  }
  for (const Motif& motif : motifs) {
    if (!motif.fingerprint) continue;
    const std::string_view op = motif.framework_op;
    if (op.substr(0, kModulePrefix.size()) != kModulePrefix) continue;
    const std::string_view name = op.substr(kModulePrefix.size());
    for (ModuleNode& node : nodes) {
      if (node.name != name) continue;
      if (std::find(node.fingerprints.begin(), node.fingerprints.end(), *motif.fingerprint) ==
          node.fingerprints.end())
        node.fingerprints.push_back(*motif.fingerprint);
    }
  }
  tree.nodes = PreOrder(std::move(nodes));
  return tree;
}

}  // namespace trainscope::analysis
