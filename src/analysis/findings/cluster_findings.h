// Findings of the cluster analysis: straggler-rank, step-start-skew,
// pseudo-overlap, slow-link, fragmented-communication.
#pragma once

#include <vector>

#include "analysis/cluster/cluster.h"
#include "analysis/common/finding.h"
#include "analysis/common/findings_catalog.h"

namespace trainscope::analysis {

// Thresholds (data/thresholds.tsv: skew_*, pseudo_overlap_*, fragmented_*,
// straggler_gain_cap_pct) and texts come from |catalog|. The slow links
// themselves are found by the cluster stage (slow_link_ratio).
void AddClusterFindings(const ClusterAnalysis& cluster, std::vector<Finding>* findings,
                        const FindingCatalog& catalog = FindingCatalog::Builtin(),
                        model::Platform platform = model::Platform::kUnknown);

}  // namespace trainscope::analysis
