#include "analysis/common/finding.h"

#include <algorithm>
#include <limits>

namespace trainscope::analysis {

double ExportedGainPct(const Finding& finding) {
  return finding.gain_withheld ? std::numeric_limits<double>::quiet_NaN()
                               : finding.estimated_gain_pct;
}

void WithholdGains(const std::string& why, std::vector<Finding>* findings) {
  for (Finding& f : *findings) {
    f.gain_withheld = true;
    f.estimated_gain_pct = 0;
    f.gain_model = why;
    for (RankEvidence& r : f.per_rank) {
      r.gain_withheld = true;
      r.estimated_gain_pct = 0;
    }
  }
}

std::vector<int32_t> RanksMeetingTitle(const Finding& finding) {
  if (finding.per_rank.empty()) return finding.ranks;
  std::vector<int32_t> out;
  for (const RankEvidence& r : finding.per_rank) {
    if (r.title == finding.title) out.push_back(r.rank);
  }
  return out;
}

std::vector<std::pair<std::string, std::vector<int32_t>>> RanksWithOtherTitles(
    const Finding& finding) {
  std::vector<std::pair<std::string, std::vector<int32_t>>> out;
  for (const RankEvidence& r : finding.per_rank) {
    if (r.title == finding.title) continue;
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const auto& group) { return group.first == r.title; });
    if (it == out.end()) {
      out.push_back({r.title, {r.rank}});
    } else {
      it->second.push_back(r.rank);
    }
  }
  return out;
}

void RankFindings(std::vector<Finding>* findings) {
  std::stable_sort(findings->begin(), findings->end(), [](const Finding& a, const Finding& b) {
    if (a.estimated_gain_pct != b.estimated_gain_pct)
      return a.estimated_gain_pct > b.estimated_gain_pct;
    return a.id < b.id;
  });
}

}  // namespace trainscope::analysis
