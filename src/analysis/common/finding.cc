#include "analysis/common/finding.h"

#include <algorithm>

namespace trainscope::analysis {

void RankFindings(std::vector<Finding>* findings) {
  std::stable_sort(findings->begin(), findings->end(), [](const Finding& a, const Finding& b) {
    if (a.estimated_gain_pct != b.estimated_gain_pct)
      return a.estimated_gain_pct > b.estimated_gain_pct;
    return a.id < b.id;
  });
}

}  // namespace trainscope::analysis
