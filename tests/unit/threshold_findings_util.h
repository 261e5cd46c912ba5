// Test shorthand: the threshold findings of a hand-built RankAnalysis's
// selected step (the product calls ThresholdFindings per step).
#pragma once

#include <vector>

#include "analysis/findings/threshold_findings.h"
#include "analysis/job/rank_analysis.h"

namespace trainscope::analysis {

inline std::vector<Finding> RankThresholdFindings(
    const RankAnalysis& rank, model::RankProfile& profile,
    const FindingCatalog& catalog = FindingCatalog::Builtin()) {
  const StepDistribution* step = rank.selected();
  if (step == nullptr) return {};
  profile.rank = rank.header.rank;
  std::vector<Finding> findings = ThresholdFindings(*step, rank.timeline, profile, catalog);
  RenderFindings(catalog, &findings, model::Platform::kAscend);
  return findings;
}

}  // namespace trainscope::analysis
