#include "model/timeline_classify.h"

namespace trainscope::model {
namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

}  // namespace

const std::vector<ClassRule>& DefaultClassRules() {
  using M = ClassRule::Match;
  constexpr ActivityKind kComm = ActivityKind::kCommunication;
  static const std::vector<ClassRule> kRules = {
      {M::kPrefix, "nccl", kComm},         {M::kContains, "ncclDevKernel", kComm},
      {M::kContains, "ncclKernel", kComm}, {M::kPrefix, "rccl", kComm},
      {M::kPrefix, "hcom", kComm},         {M::kPrefix, "hccl", kComm},
      {M::kPrefix, "Hccl", kComm},         {M::kPrefix, "HCCL", kComm},
      {M::kContains, "dpsk::ep::", kComm}, {M::kContains, "multimem_all_reduce", kComm},
      {M::kContains, "cross_device_reduce", kComm},
  };
  return kRules;
}

ActivityKind ClassifyActivity(std::string_view name, std::string_view category,
                              bool has_collective_args, const std::vector<ClassRule>& rules) {
  if (has_collective_args) return ActivityKind::kCommunication;
  if (category == "gpu_memcpy" || category == "Memcpy") return ActivityKind::kMemcpy;
  if (category == "gpu_memset" || category == "Memset") return ActivityKind::kMemset;
  // Kernels named "void ns::f<...>" match prefixes after the "void ".
  std::string_view bare = StartsWith(name, "void ") ? name.substr(5) : name;
  for (const ClassRule& rule : rules) {
    bool hit = rule.match == ClassRule::Match::kPrefix
                   ? StartsWith(bare, rule.pattern)
                   : name.find(rule.pattern) != std::string_view::npos;
    if (hit) return rule.kind;
  }
  return ActivityKind::kCompute;
}

std::string_view ShortKernelName(std::string_view name) {
  if (StartsWith(name, "void ")) name.remove_prefix(5);
  constexpr std::string_view kAnon = "(anonymous namespace)";
  size_t i = 0;
  while (i < name.size()) {
    if (name[i] == '(' && name.substr(i, kAnon.size()) == kAnon) {
      i += kAnon.size();
      continue;
    }
    if (name[i] == '<' || name[i] == '(') break;
    ++i;
  }
  std::string_view out = name.substr(0, i);
  while (!out.empty() && out.back() == ' ') out.remove_suffix(1);
  return out.empty() ? name : out;
}

}  // namespace trainscope::model
