// FamilyRules: the kernel family rule table (data/families.tsv).
//
// Families answer "what kind of work is this kernel" at a glance: matmul /
// attention, norm, elementwise, glue, loss, optimizer, communication...
// (methodology §2 step 3). The table is data, not code, so users can extend
// it for their own kernels with --families FILE.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "model/kernel_table.h"

namespace trainscope::analysis {

enum class RuleField { kType, kName, kKind };

struct FamilyRule {
  std::string family;
  RuleField field = RuleField::kType;
  std::string pattern;  // lower-case glob
  std::string source;   // "file:line", for messages
};

class FamilyRules {
 public:
  // The built-in table compiled from data/families.tsv.
  static const FamilyRules& Builtin();
  // Parses a rule file. Errors name |source_name| and the line.
  static Result<FamilyRules> Parse(std::string_view text, const std::string& source_name);
  // User rules first (they win), then |base|.
  static FamilyRules Merge(const FamilyRules& user, const FamilyRules& base);

  // Index into families() of the first matching rule; the last family
  // ("other") when nothing matches.
  size_t Classify(std::string_view op_type, std::string_view name, model::KernelKind kind) const;

  const std::vector<std::string>& families() const { return families_; }
  const std::vector<FamilyRule>& rules() const { return rules_; }

 private:
  size_t FamilyIndex(const std::string& family);

  std::vector<FamilyRule> rules_;
  std::vector<size_t> rule_family_;
  std::vector<std::string> families_;  // in first-appearance order; "other" guaranteed
};

// Case-insensitive glob match; '*' matches any run (including empty).
bool GlobMatch(std::string_view pattern_lower, std::string_view text);

}  // namespace trainscope::analysis
