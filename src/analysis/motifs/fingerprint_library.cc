#include "analysis/motifs/fingerprint_library.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "analysis/common/family_rules.h"
#include "core/rule_file.h"
#include "model/kernel_names.h"

namespace trainscope::embedded {
extern const unsigned char kBuiltinFingerprintsTsv[];
}  // namespace trainscope::embedded

namespace trainscope::analysis {
namespace {

// "Ascend: A; GPU: B" -> A and B; a part not named stays "" (the finding
// then shows the whole remedy).
void SplitRemedy(std::string_view remedy, std::string* ascend, std::string* gpu) {
  constexpr std::string_view kAscend = "Ascend:";
  constexpr std::string_view kGpu = "GPU:";
  const size_t gpu_at = remedy.find(kGpu);
  if (gpu_at != std::string_view::npos) {
    *gpu = std::string(TrimRuleText(remedy.substr(gpu_at + kGpu.size())));
  }
  const size_t ascend_at = remedy.find(kAscend);
  if (ascend_at != std::string_view::npos) {
    const size_t begin = ascend_at + kAscend.size();
    const size_t end = gpu_at != std::string_view::npos && gpu_at > begin ? gpu_at : remedy.size();
    std::string_view part = TrimRuleText(remedy.substr(begin, end - begin));
    while (!part.empty() && (part.back() == ';' || part.back() == ' ')) part.remove_suffix(1);
    *ascend = std::string(part);
  }
}

// A dtype cast may sit anywhere in an eager chain (Hugging Face's RMSNorm
// casts between its two multiplications: weight * hidden.to(input_dtype)),
// so every gap between two members of a fused chain accepts one optional
// cast: "Cast?" on Ascend, a copy kernel (the cast's kernel) on GPU. Chains
// of casts (cast-chain) are left as written.
void AllowCastsBetweenMembers(const std::string& cast, Fingerprint* fp) {
  auto is_cast = [&](const PatternMember& m) {
    return !m.any && m.name_globs.empty() && m.alternatives.size() == 1 &&
           m.alternatives[0] == cast;
  };
  const bool all_casts = std::all_of(fp->members.begin(), fp->members.end(), is_cast);
  if (fp->action != FingerprintAction::kFuse || all_casts) return;
  const bool gpu = std::all_of(fp->members.begin(), fp->members.end(), [](const PatternMember& m) {
    return m.any || (!m.name_globs.empty() && m.alternatives.empty());
  });
  PatternMember optional_cast;
  optional_cast.optional = true;
  if (gpu) {
    optional_cast.name_globs.push_back("*copy_kernel*");
  } else {
    optional_cast.alternatives.push_back(cast);
  }
  auto accepts_casts = [&](const PatternMember& m) {
    return m.optional && (is_cast(m) || (gpu && m.name_globs == optional_cast.name_globs));
  };
  std::vector<PatternMember> members;
  for (size_t i = 0; i < fp->members.size(); ++i) {
    members.push_back(fp->members[i]);
    if (i + 1 == fp->members.size()) break;
    if (accepts_casts(fp->members[i]) || accepts_casts(fp->members[i + 1])) continue;
    members.push_back(optional_cast);
  }
  fp->members = std::move(members);
}

}  // namespace

size_t Fingerprint::required_members() const {
  return static_cast<size_t>(std::count_if(members.begin(), members.end(),
                                           [](const PatternMember& m) { return !m.optional; }));
}

std::string FingerprintLibrary::Canonical(std::string_view op_type) const {
  // Matched on the normalised op type, so a kernel's template arguments do
  // not keep it from its pattern (model/kernel_names.h).
  std::string lower = AsciiLower(model::NormalisedOpType(op_type));
  // Spellings of one operator across CANN / torch_npu generations: the
  // aclnn API prefix (aclnnMul) and a version suffix (MulV2, MatMulV3).
  if (lower.size() > 5 && lower.starts_with("aclnn")) lower.erase(0, 5);
  size_t digits = lower.size();
  while (digits > 0 && lower[digits - 1] >= '0' && lower[digits - 1] <= '9') --digits;
  if (digits < lower.size() && digits >= 3 && lower[digits - 1] == 'v' &&
      std::isalpha(static_cast<unsigned char>(lower[digits - 2]))) {
    lower.resize(digits - 1);
  }
  for (const auto& [from, to] : equiv_) {
    if (lower == from) return to;
  }
  return lower;
}

std::vector<std::pair<std::string, std::string>> Fingerprint::TextLabels() const {
  return {{"fp_title", title},
          {"fp_root_cause", root_cause},
          {"fp_formula", formula},
          {"fp_remedy", remedy},
          {"fp_remedy_ascend", remedy_ascend.empty() ? remedy : remedy_ascend},
          {"fp_remedy_gpu", remedy_gpu.empty() ? remedy : remedy_gpu}};
}

FingerprintLibrary FingerprintLibrary::WithoutNameOnlyRows() const {
  FingerprintLibrary out;
  out.equiv_ = equiv_;
  out.fused_globs_ = fused_globs_;
  for (const Fingerprint& fp : fingerprints_) {
    const bool names_only =
        std::all_of(fp.members.begin(), fp.members.end(), [](const PatternMember& m) {
          return m.any || (!m.name_globs.empty() && m.alternatives.empty());
        });
    if (!names_only) out.fingerprints_.push_back(fp);
  }
  return out;
}

bool FingerprintLibrary::IsFusedKernel(std::string_view lower_name) const {
  return std::any_of(fused_globs_.begin(), fused_globs_.end(),
                     [&](const std::string& glob) { return GlobMatch(glob, lower_name); });
}

const Fingerprint* FingerprintLibrary::Find(std::string_view id) const {
  for (const auto& fp : fingerprints_) {
    if (fp.id == id) return &fp;
  }
  return nullptr;
}

Result<FingerprintLibrary> FingerprintLibrary::Parse(std::string_view text,
                                                     const std::string& source_name) {
  FingerprintLibrary library;
  std::vector<std::vector<std::string_view>> rows;
  std::vector<int> row_lines;
  TS_RETURN_IF_ERROR(ForEachRuleLine(
      text,
      [&](size_t line_number, std::string_view,
          const std::vector<std::string_view>& fields) -> Status {
        const std::string where = fmt::format("{}:{}", source_name, line_number);
        if (fields[0] == "equiv") {
          if (fields.size() != 3 || fields[1].empty() || fields[2].empty()) {
            return InvalidInput(where +
                                ": an equiv row needs 3 tab-separated fields: equiv FROM TO");
          }
          library.equiv_.emplace_back(AsciiLower(fields[1]), AsciiLower(fields[2]));
          return Status::Ok();
        }
        if (fields[0] == "fused") {
          if (fields.size() != 3 || fields[1].empty()) {
            return InvalidInput(where +
                                ": a fused row needs 3 tab-separated fields: fused GLOB WHAT");
          }
          library.fused_globs_.push_back(AsciiLower(fields[1]));
          return Status::Ok();
        }
        if (fields[0] != "fingerprint") {
          return InvalidInput(where +
                              ": a row starts with 'equiv', 'fused' or 'fingerprint', got '" +
                              std::string(fields[0]) + "'");
        }
        if (fields.size() != 9) {
          return InvalidInput(fmt::format(
              "{}: a fingerprint row needs 9 tab-separated fields (fingerprint id variant "
              "pattern action title formula root_cause remedy), got {}",
              where, fields.size()));
        }
        rows.push_back(fields);
        row_lines.push_back(static_cast<int>(line_number));
        return Status::Ok();
      },
      RuleColumns::kTabs));
  // Patterns are canonicalised with the file's own equivalences, so rows
  // may come before or after the equiv rows.
  for (size_t r = 0; r < rows.size(); ++r) {
    const auto& f = rows[r];
    const std::string where = fmt::format("{}:{}", source_name, row_lines[r]);
    Fingerprint fp;
    fp.id = std::string(f[1]);
    fp.variant = std::string(f[2]);
    fp.pattern = std::string(f[3]);
    fp.source = where;
    if (fp.id.empty()) return InvalidInput(where + ": empty fingerprint id");
    if (f[4] == "fuse") {
      fp.action = FingerprintAction::kFuse;
    } else if (f[4] == "remove") {
      fp.action = FingerprintAction::kRemove;
    } else {
      return InvalidInput(where + ": action must be 'fuse' or 'remove', got '" + std::string(f[4]) +
                          "'");
    }
    fp.title = std::string(f[5]);
    fp.formula = std::string(f[6]);
    fp.root_cause = std::string(f[7]);
    fp.remedy = std::string(f[8]);
    SplitRemedy(fp.remedy, &fp.remedy_ascend, &fp.remedy_gpu);
    for (std::string_view token : SplitOn(fp.pattern, ' ')) {
      token = TrimRuleText(token);
      if (token.empty()) continue;
      PatternMember member;
      if (token == "ANY" || token == "ANY?") {
        member.any = true;
        member.optional = token == "ANY?";
        fp.members.push_back(member);
        continue;
      }
      for (std::string_view alt : SplitOn(token, '|')) {
        if (!alt.empty() && alt.back() == '?') {
          member.optional = true;
          alt.remove_suffix(1);
        }
        if (alt.empty())
          return InvalidInput(where + ": empty member in pattern '" + fp.pattern + "'");
        if (alt.substr(0, 5) == "name~") {
          member.name_globs.push_back(AsciiLower(alt.substr(5)));
        } else {
          member.alternatives.push_back(library.Canonical(alt));
        }
      }
      fp.members.push_back(std::move(member));
    }
    if (fp.required_members() < 2) {
      return InvalidInput(where + ": a pattern needs at least 2 required members: '" + fp.pattern +
                          "'");
    }
    if (fp.members.front().any || fp.members.back().any) {
      return InvalidInput(where + ": ANY must be surrounded by the chain: '" + fp.pattern + "'");
    }
    AllowCastsBetweenMembers(library.Canonical("Cast"), &fp);
    library.fingerprints_.push_back(std::move(fp));
  }
  return library;
}

FingerprintLibrary FingerprintLibrary::Merge(const FingerprintLibrary& user,
                                             const FingerprintLibrary& base) {
  FingerprintLibrary merged;
  merged.equiv_ = user.equiv_;
  for (const auto& pair : base.equiv_) {
    const bool overridden = std::any_of(merged.equiv_.begin(), merged.equiv_.end(),
                                        [&](const auto& e) { return e.first == pair.first; });
    if (!overridden) merged.equiv_.push_back(pair);
  }
  merged.fused_globs_ = user.fused_globs_;
  merged.fused_globs_.insert(merged.fused_globs_.end(), base.fused_globs_.begin(),
                             base.fused_globs_.end());
  merged.fingerprints_ = user.fingerprints_;
  merged.fingerprints_.insert(merged.fingerprints_.end(), base.fingerprints_.begin(),
                              base.fingerprints_.end());
  return merged;
}

const FingerprintLibrary& FingerprintLibrary::Builtin() {
  static const FingerprintLibrary* library = [] {
    auto parsed = Parse(reinterpret_cast<const char*>(embedded::kBuiltinFingerprintsTsv),
                        "data/fingerprints.tsv");
    // The built-in table is tested; an error here is a bug in the data file.
    return new FingerprintLibrary(parsed.ok() ? std::move(parsed).value() : FingerprintLibrary());
  }();
  return *library;
}

}  // namespace trainscope::analysis
