#include "analysis/common/family_rules.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/rule_file.h"
#include "core/safe_text.h"
#include "model/kernel_names.h"

namespace trainscope::embedded {
extern const unsigned char kBuiltinFamiliesTsv[];
}

namespace trainscope::analysis {
namespace {

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view text) {
  // Iterative matcher with single backtrack point: linear in practice.
  size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (p < pattern.size() && pattern[p] == Lower(text[t])) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

size_t FamilyRules::FamilyIndex(const std::string& family) {
  auto it = std::find(families_.begin(), families_.end(), family);
  if (it != families_.end()) return static_cast<size_t>(it - families_.begin());
  families_.push_back(family);
  return families_.size() - 1;
}

KernelFamilies::KernelFamilies(const model::RankProfile& profile, const FamilyRules& rules)
    : kernels_(profile.device_events), rules_(rules) {
  constexpr uint32_t kUnknown = UINT32_MAX;
  by_name_.assign(profile.strings.size(), kUnknown);
  for (size_t i = 0; i < kernels_.size(); ++i) {
    uint32_t& family = by_name_[kernels_.name[i]];
    if (family == kUnknown) {
      family = static_cast<uint32_t>(rules.Classify(profile.strings.Get(kernels_.op_type[i]),
                                                    profile.strings.Get(kernels_.name[i]),
                                                    kernels_.kind[i]));
    }
  }
}

Result<FamilyRules> FamilyRules::Parse(std::string_view text, const std::string& source_name) {
  FamilyRules rules;
  Status status = ForEachRuleLine(
      text,
      [&](size_t line_number, std::string_view line,
          const std::vector<std::string_view>& columns) -> Status {
        if (columns.size() != 3) {
          return InvalidInput(fmt::format(
              "{}:{}: expected 3 columns (family, field, pattern), found {}: '{}'\n"
              "hint: separate columns with a TAB or two spaces; field is type, name or kind",
              source_name, line_number, columns.size(), CappedQuote(line)));
        }
        FamilyRule rule;
        rule.family = std::string(columns[0]);
        std::string field = AsciiLower(columns[1]);
        if (field == "type") {
          rule.field = RuleField::kType;
        } else if (field == "name") {
          rule.field = RuleField::kName;
        } else if (field == "kind") {
          rule.field = RuleField::kKind;
        } else {
          return InvalidInput(fmt::format("{}:{}: unknown field '{}'\nhint: use type, name or kind",
                                          source_name, line_number, columns[1]));
        }
        rule.pattern = AsciiLower(columns[2]);
        rule.source = fmt::format("{}:{}", source_name, line_number);
        rules.rule_family_.push_back(rules.FamilyIndex(rule.family));
        rules.rules_.push_back(std::move(rule));
        return Status::Ok();
      });
  if (!status.ok()) return status;
  rules.FamilyIndex("other");
  return rules;
}

FamilyRules FamilyRules::Merge(const FamilyRules& user, const FamilyRules& base) {
  FamilyRules merged;
  for (const auto* table : {&user, &base}) {
    for (const auto& rule : table->rules_) {
      merged.rule_family_.push_back(merged.FamilyIndex(rule.family));
      merged.rules_.push_back(rule);
    }
  }
  merged.FamilyIndex("other");
  return merged;
}

const FamilyRules& FamilyRules::Builtin() {
  static const FamilyRules* builtin = [] {
    auto parsed =
        Parse(reinterpret_cast<const char*>(embedded::kBuiltinFamiliesTsv), "data/families.tsv");
    // The built-in table is tested; a parse failure here is a build defect.
    if (!parsed.ok()) {
      fmt::print(stderr, "trainscope: internal error: {}\n", parsed.status().message());
      std::abort();
    }
    return new FamilyRules(std::move(parsed).value());
  }();
  return *builtin;
}

size_t FamilyRules::Classify(std::string_view op_type, std::string_view name,
                             model::ActivityKind kind) const {
  // Type rules match the normalised op type: one rule covers every instance
  // of a template (model/kernel_names.h).
  op_type = model::NormalisedOpType(op_type);
  std::string_view kind_text = kind == model::ActivityKind::kCommunication ? "communication"
                               : model::IsMemoryTraffic(kind)              ? "memory"
                                                                           : "compute";
  for (size_t i = 0; i < rules_.size(); ++i) {
    const FamilyRule& rule = rules_[i];
    std::string_view subject = rule.field == RuleField::kType   ? op_type
                               : rule.field == RuleField::kName ? name
                                                                : kind_text;
    if (GlobMatch(rule.pattern, subject)) return rule_family_[i];
  }
  return static_cast<size_t>(std::find(families_.begin(), families_.end(), "other") -
                             families_.begin());
}

}  // namespace trainscope::analysis
