#include "model/timeline_classify.h"

#include <fmt/format.h>

#include "core/rule_file.h"

namespace trainscope::model {
const std::vector<ClassRule>& DefaultClassRules() {
  using M = ClassRule::Match;
  constexpr ActivityKind kComm = ActivityKind::kCommunication;
  static const std::vector<ClassRule> kRules = {
      {M::kPrefix, "nccl", kComm},
      {M::kContains, "ncclDevKernel", kComm},
      {M::kContains, "ncclKernel", kComm},
      {M::kPrefix, "rccl", kComm},
      {M::kPrefix, "hcom", kComm},
      {M::kPrefix, "hccl", kComm},
      {M::kPrefix, "Hccl", kComm},
      {M::kPrefix, "HCCL", kComm},
      {M::kContains, "dpsk::ep::", kComm},
      {M::kContains, "multimem_all_reduce", kComm},
      {M::kContains, "cross_device_reduce", kComm},
  };
  return kRules;
}

Result<std::vector<ClassRule>> ParseClassRules(std::string_view text,
                                               const std::string& source_name) {
  std::vector<ClassRule> rules;
  Status status = ForEachRuleLine(
      text,
      [&](size_t line_number, std::string_view line,
          const std::vector<std::string_view>& columns) -> Status {
        if (columns.size() != 3) {
          return InvalidInput(
              fmt::format("{}:{}: expected 3 columns (kind, match, pattern), found {}: '{}'\n"
                          "hint: e.g. 'communication<TAB>contains<TAB>my_allreduce_kernel'",
                          source_name, line_number, columns.size(), line));
        }
        ClassRule rule;
        const std::optional<ActivityKind> kind =
            kActivityKindNames.FromName(AsciiLower(columns[0]));
        if (!kind) {
          return InvalidInput(fmt::format("{}:{}: unknown kind '{}'\nhint: use {}", source_name,
                                          line_number, columns[0], kActivityKindNames.Choices()));
        }
        rule.kind = *kind;
        const std::string match = AsciiLower(columns[1]);
        if (match == "prefix")
          rule.match = ClassRule::Match::kPrefix;
        else if (match == "contains")
          rule.match = ClassRule::Match::kContains;
        else {
          return InvalidInput(fmt::format("{}:{}: unknown match '{}'\nhint: use prefix or contains",
                                          source_name, line_number, columns[1]));
        }
        rule.pattern = std::string(columns[2]);
        rules.push_back(std::move(rule));
        return Status::Ok();
      });
  if (!status.ok()) return status;
  return rules;
}

std::vector<ClassRule> WithDefaultClassRules(std::vector<ClassRule> user) {
  const auto& defaults = DefaultClassRules();
  user.insert(user.end(), defaults.begin(), defaults.end());
  return user;
}

ActivityKind ClassifyActivity(std::string_view name, std::string_view category,
                              bool has_collective_args, const std::vector<ClassRule>& rules) {
  if (has_collective_args) return ActivityKind::kCommunication;
  if (category == "gpu_memcpy" || category == "Memcpy") return ActivityKind::kMemcpy;
  if (category == "gpu_memset" || category == "Memset") return ActivityKind::kMemset;
  // Kernels named "void ns::f<...>" match prefixes after the "void ".
  std::string_view bare = name.starts_with("void ") ? name.substr(5) : name;
  for (const ClassRule& rule : rules) {
    bool hit = rule.match == ClassRule::Match::kPrefix
                   ? bare.starts_with(rule.pattern)
                   : name.find(rule.pattern) != std::string_view::npos;
    if (hit) return rule.kind;
  }
  return ActivityKind::kCompute;
}

}  // namespace trainscope::model
