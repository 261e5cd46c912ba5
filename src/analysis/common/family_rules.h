// FamilyRules: the kernel family rule table (data/families.tsv).
//
// Families answer "what kind of work is this kernel" at a glance: matmul /
// attention, norm, elementwise, glue, loss, optimizer, communication...
// (methodology §2 step 3). The table is data, not code, so users can extend
// it for their own kernels with --families FILE.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/status.h"
#include "model/device_events.h"
#include "model/rank_profile.h"

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
  // ("other") when nothing matches. Type rules see
  // model::NormalisedOpType(op_type), name rules the full kernel name.
  size_t Classify(std::string_view op_type, std::string_view name, model::ActivityKind kind) const;

  const std::vector<std::string>& families() const { return families_; }
  const std::vector<FamilyRule>& rules() const { return rules_; }

 private:
  size_t FamilyIndex(const std::string& family);
  void AddRule(FamilyRule rule);
  void Finish();

  std::vector<FamilyRule> rules_;
  std::vector<size_t> rule_family_;
  std::vector<std::string> families_;  // in first-appearance order; "other" guaranteed
  std::unordered_map<std::string, size_t> family_index_;
  size_t other_ = 0;
  // Per RuleField: the first rule of each exact (star-free) pattern, and
  // the glob rules in order, so a match costs one lookup and the globs.
  std::array<std::unordered_map<std::string, size_t>, 3> exact_;
  std::array<std::vector<size_t>, 3> globs_;
};

// The family of every kernel of one profile, classified once per distinct
// name (within a profile a name determines its op type and kind). A rank
// repeats a few thousand names over millions of rows, and every per-step
// analysis needs the families: classifying per step cost S x names x rules
// glob matches.
class KernelFamilies {
 public:
  KernelFamilies(const model::RankProfile& profile, const FamilyRules& rules);
  // Index into rules().families() of kernel row |row|.
  size_t Of(size_t row) const { return by_name_[kernels_.name[row]]; }
  const FamilyRules& rules() const { return rules_; }

 private:
  const model::DeviceEvents& kernels_;
  const FamilyRules& rules_;
  std::vector<uint32_t> by_name_;  // by StringId of the kernel name
};

// Case-insensitive glob match; '*' matches any run (including empty).
// Linear in the pattern and the text: the literal pieces between the stars
// are matched leftmost-first, each found with a linear search.
bool GlobMatch(std::string_view pattern_lower, std::string_view text);

}  // namespace trainscope::analysis
