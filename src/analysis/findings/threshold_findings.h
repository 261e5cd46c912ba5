// The threshold rules of methodology §3 on one rank's selected step:
// exposed communication (normal / examine bands), device free time
// (host-bound dispatch), a dominant operator (share of kernel time) and
// compute- vs memory-bound operators from the AI Core pipe ratios; the
// numbers are in data/thresholds.tsv.
#pragma once

#include <vector>

#include "analysis/common/finding.h"
#include "analysis/common/findings_catalog.h"
#include "analysis/findings/memory_findings.h"
#include "analysis/step/kernel_distribution.h"
#include "analysis/timeline/step_timeline.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

// Findings of one step of |profile|'s rank (ranks = {profile.rank}) with its
// timeline (the step-start wait); merged across ranks by the caller.
// Thresholds come from |catalog| (data/thresholds.tsv); the findings are data
// (ids and values): RenderFindings makes their text (data/findings.tsv).
// |memory_gaps|: the rank's StepGapShares (memory_findings.h), made once
// per rank by AnalyzeRank; nullptr makes them for this call.
std::vector<Finding> ThresholdFindings(const StepDistribution& step, const StepTimeline& timeline,
                                       const model::RankProfile& profile,
                                       const FindingCatalog& catalog = FindingCatalog::Builtin(),
                                       const StepGapShares* memory_gaps = nullptr);

}  // namespace trainscope::analysis
