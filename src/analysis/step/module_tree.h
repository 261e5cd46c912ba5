// The nn.Module time tree of one step ("Views users ask for"):
// from the host data where module annotations exist (Kineto and torch_npu
// trace python_function events named "nn.Module: <Class>_<n>", with launch
// links from kernels to their host launches), each module's calls, host
// time, and the device kernels launched inside it, sub-modules included.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/motifs/motifs.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

struct ModuleNode {
  std::string name;     // as torch names the call: "Qwen2DecoderLayer_3" ("nn.Module: " dropped)
  int32_t parent = -1;  // index into ModuleTree::nodes; -1: top level
  // Calls of this module (the same path: the same chain of module names)
  // that launched at least one kernel of the step, and their summed host
  // duration.
  int64_t calls = 0;
  int64_t host_ns = 0;
  // Device events of the step launched inside it, sub-modules included,
  // and their summed duration.
  int64_t kernels = 0;
  int64_t kernel_ns = 0;
  // Fingerprints whose motif the host attribution places in a module of
  // this name (Motif::framework_op "nn.Module: <name>").
  std::vector<std::string> fingerprints;
};

struct ModuleTree {
  // Pre-order: a parent before its children, siblings in the order of their
  // first kernel.
  std::vector<ModuleNode> nodes;
  int64_t kernels = 0;          // device events of the step
  int64_t outside_kernels = 0;  // of them, launched outside every module (or with no launch link)
  int64_t outside_ns = 0;
};

// nullopt when no kernel of the step was launched inside an nn.Module
// (no trace, no Python frames, no launch links: with_stack / with_modules
// off), so the tree is unknown, not empty. Backward kernels run on the
// autograd thread outside any module frame: they count as outside.
std::optional<ModuleTree> ComputeModuleTree(const model::RankProfile& profile, int32_t step,
                                            const std::vector<Motif>& motifs);

}  // namespace trainscope::analysis
