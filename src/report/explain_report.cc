#include "report/explain_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <vector>

namespace trainscope::report {
namespace {

using analysis::FindingCatalog;
using analysis::FindingEntry;

// Ids a user can look up: detector entries ("_" entries are shared pieces,
// "fingerprint" stands for the library's ids).
bool Listed(const FindingEntry& e) { return e.id.front() != '_' && e.id != "fingerprint"; }

// The variants of |part| in |e|: "" first, then each PART@VARIANT.
std::vector<std::string> Variants(const FindingEntry& e, const std::string& part) {
  std::vector<std::string> out;
  for (const auto& [key, text] : e.parts) {
    if (key == part) out.insert(out.begin(), "");
    if (key.rfind(part + "@", 0) == 0) out.push_back(key.substr(part.size() + 1));
  }
  return out;
}

std::string Describe(const analysis::ThresholdInfo& t) {
  const std::string of = t.relative_to == "none" ? "" : " of the " + t.relative_to;
  return fmt::format("    {} = {} ({}{})\n      origin: {}{}\n", t.key, t.value, t.unit, of,
                     t.origin,
                     t.source.rfind("data/", 0) == 0 ? "" : fmt::format(" (set in {})", t.source));
}

}  // namespace

std::string ListFindingIds(const FindingCatalog& catalog,
                           const analysis::FingerprintLibrary& library) {
  std::string out = "finding ids (trainscope explain ID for the entry):\n";
  analysis::Finding blank;
  for (const FindingEntry& e : catalog.entries()) {
    if (!Listed(e)) continue;
    out += fmt::format("  {:<26} {}\n", e.id, catalog.RenderPart(e.Part("title"), blank, nullptr));
  }
  std::set<std::string> seen;
  for (const auto& fp : library.fingerprints()) {
    if (seen.insert(fp.id).second) out += fmt::format("  {:<26} {}\n", fp.id, fp.title);
  }
  return out;
}

std::optional<std::string> ExplainFinding(const FindingCatalog& catalog,
                                          const analysis::FingerprintLibrary& library,
                                          std::string_view id) {
  const FindingEntry* entry = catalog.Find(id);
  analysis::Finding values;  // threshold placeholders only, plus a fingerprint's row
  if (entry != nullptr && !Listed(*entry)) entry = nullptr;
  if (entry == nullptr) {
    const analysis::Fingerprint* fp = library.Find(id);
    if (fp == nullptr) return std::nullopt;
    entry = catalog.Find("fingerprint");
    if (entry == nullptr) return std::nullopt;
    values.text_labels = {{"fp_title", fp->title},
                          {"fp_root_cause", fp->root_cause},
                          {"fp_formula", fp->formula},
                          {"fp_remedy", fp->remedy}};
  }
  std::string out = fmt::format("{}\n", id);
  const std::pair<const char*, const char*> parts[] = {{"title", "title"},
                                                       {"evidence", "evidence"},
                                                       {"cause", "cause"},
                                                       {"remedy", "remedy"},
                                                       {"gain", "gain model"}};
  for (const auto& [part, label] : parts) {
    for (const std::string& variant : Variants(*entry, part)) {
      const std::string name = variant.empty() ? label : fmt::format("{} ({})", label, variant);
      out += fmt::format("  {}:\n    {}\n", name,
                         catalog.RenderPart(entry->Part(part, variant), values, nullptr));
    }
  }
  out += fmt::format("  evidence values: {}\n", fmt::join(entry->values, " "));
  out += "  thresholds:\n";
  if (entry->thresholds.empty()) out += "    none\n";
  for (const std::string& key : entry->thresholds) {
    if (const analysis::ThresholdInfo* t = catalog.FindThreshold(key)) out += Describe(*t);
  }
  return out;
}

}  // namespace trainscope::report
