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
  }
}

void RankFindings(std::vector<Finding>* findings) {
  std::stable_sort(findings->begin(), findings->end(), [](const Finding& a, const Finding& b) {
    if (a.estimated_gain_pct != b.estimated_gain_pct)
      return a.estimated_gain_pct > b.estimated_gain_pct;
    return a.id < b.id;
  });
}

}  // namespace trainscope::analysis
