#include "analysis/common/family_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "core/rule_file.h"
#include "core/safe_text.h"
#include "model/kernel_names.h"

namespace trainscope::embedded {
extern const unsigned char kBuiltinFamiliesTsv[];
}

namespace trainscope::analysis {
namespace {

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// Whether |text| (any case) spells |piece| (lower-case) at |at|.
bool GlobPieceAt(std::string_view piece, std::string_view text, size_t at) {
  if (at > text.size() || piece.size() > text.size() - at) return false;
  for (size_t i = 0; i < piece.size(); ++i) {
    if (piece[i] != Lower(text[at + i])) return false;
  }
  return true;
}

// Pieces up to this long are searched position by position (at most this
// many compares a position); longer ones with Knuth-Morris-Pratt.
constexpr size_t kShortGlobPiece = 16;

// The first position at or after |from| where |piece| (lower-case,
// non-empty) starts in |text|, any case; npos when none. Linear in the
// text and the piece.
size_t FindGlobPiece(std::string_view piece, std::string_view text, size_t from) {
  if (from > text.size() || piece.size() > text.size() - from) return std::string_view::npos;
  if (piece.size() <= kShortGlobPiece) {
    for (size_t at = from; at + piece.size() <= text.size(); ++at) {
      if (GlobPieceAt(piece, text, at)) return at;
    }
    return std::string_view::npos;
  }
  // fail[k]: the length of the longest proper border of piece[0, k].
  std::vector<size_t> fail(piece.size(), 0);
  for (size_t k = 1, border = 0; k < piece.size(); ++k) {
    while (border > 0 && piece[k] != piece[border]) border = fail[border - 1];
    if (piece[k] == piece[border]) ++border;
    fail[k] = border;
  }
  size_t matched = 0;
  for (size_t i = from; i < text.size(); ++i) {
    const char c = Lower(text[i]);
    while (matched > 0 && c != piece[matched]) matched = fail[matched - 1];
    if (c == piece[matched]) ++matched;
    if (matched == piece.size()) return i + 1 - piece.size();
  }
  return std::string_view::npos;
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view text) {
  const size_t first_star = pattern.find('*');
  if (first_star == std::string_view::npos) {
    return pattern.size() == text.size() && GlobPieceAt(pattern, text, 0);
  }
  // The piece before the first star is a prefix, the one after the last a
  // suffix; the pieces between are found leftmost-first, which is a match
  // whenever any is ('*' absorbs the gaps).
  const size_t last_star = pattern.rfind('*');
  const std::string_view head = pattern.substr(0, first_star);
  const std::string_view tail = pattern.substr(last_star + 1);
  if (head.size() + tail.size() > text.size() || !GlobPieceAt(head, text, 0) ||
      !GlobPieceAt(tail, text, text.size() - tail.size())) {
    return false;
  }
  const std::string_view middle_text = text.substr(0, text.size() - tail.size());
  size_t at = head.size();
  size_t p = first_star + 1;
  while (p < last_star) {
    size_t star = pattern.find('*', p);
    const std::string_view piece = pattern.substr(p, star - p);
    p = star + 1;
    if (piece.empty()) continue;
    const size_t found = FindGlobPiece(piece, middle_text, at);
    if (found == std::string_view::npos) return false;
    at = found + piece.size();
  }
  return true;
}

size_t FamilyRules::FamilyIndex(const std::string& family) {
  auto [it, added] = family_index_.try_emplace(family, families_.size());
  if (added) families_.push_back(family);
  return it->second;
}

void FamilyRules::AddRule(FamilyRule rule) {
  const size_t index = rules_.size();
  rule_family_.push_back(FamilyIndex(rule.family));
  const auto field = static_cast<size_t>(rule.field);
  if (rule.pattern.find('*') == std::string::npos) {
    exact_[field].try_emplace(rule.pattern, index);  // the first rule of a pattern wins
  } else {
    globs_[field].push_back(index);
  }
  rules_.push_back(std::move(rule));
}

void FamilyRules::Finish() { other_ = FamilyIndex("other"); }

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
        rules.AddRule(std::move(rule));
        return Status::Ok();
      });
  if (!status.ok()) return status;
  rules.Finish();
  return rules;
}

FamilyRules FamilyRules::Merge(const FamilyRules& user, const FamilyRules& base) {
  FamilyRules merged;
  for (const auto* table : {&user, &base}) {
    for (const auto& rule : table->rules_) merged.AddRule(rule);
  }
  merged.Finish();
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
  const std::array<std::string_view, 3> subjects = {op_type, name, kind_text};
  // The first matching rule: the lowest index among each field's exact
  // rule and its globs before that.
  size_t best = rules_.size();
  for (size_t field = 0; field < subjects.size(); ++field) {
    const auto exact = exact_[field].find(AsciiLower(subjects[field]));
    if (exact != exact_[field].end()) best = std::min(best, exact->second);
    for (const size_t index : globs_[field]) {
      if (index >= best) break;
      if (GlobMatch(rules_[index].pattern, subjects[field])) {
        best = index;
        break;
      }
    }
  }
  return best < rules_.size() ? rule_family_[best] : other_;
}

}  // namespace trainscope::analysis
