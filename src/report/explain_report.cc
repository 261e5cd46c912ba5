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

// The keys of |part| in |e| with their labels: the plain part first, then
// PART@VARIANT, PART:PLATFORM and PART@VARIANT:PLATFORM in table order.
std::vector<std::pair<std::string, std::string>> PartKeys(const FindingEntry& e,
                                                          const std::string& part,
                                                          const std::string& label) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, text] : e.parts) {
    if (key == part) {
      out.insert(out.begin(), {key, label});
      continue;
    }
    if (key.rfind(part + "@", 0) != 0 && key.rfind(part + ":", 0) != 0) continue;
    const std::string rest = key.substr(part.size());  // "@variant", ":platform", "@v:p"
    const size_t colon = rest.find(':');
    const std::string variant = rest[0] == '@' ? rest.substr(1, colon - 1) : std::string();
    const std::string platform = colon == std::string::npos ? "" : rest.substr(colon + 1);
    std::string qualifier = variant;
    if (!platform.empty()) qualifier += (variant.empty() ? "on " : ", on ") + platform;
    out.emplace_back(key, fmt::format("{} ({})", label, qualifier));
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
    values.text_labels = fp->TextLabels();
  }
  std::string out = fmt::format("{}\n", id);
  const std::pair<const char*, const char*> parts[] = {{"title", "title"},
                                                       {"evidence", "evidence"},
                                                       {"cause", "cause"},
                                                       {"remedy", "remedy"},
                                                       {"gain", "gain model"}};
  for (const auto& [part, label] : parts) {
    for (const auto& [key, name] : PartKeys(*entry, part, label)) {
      out += fmt::format("  {}:\n    {}\n", name,
                         catalog.RenderPart(entry->parts.at(key), values, nullptr));
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
