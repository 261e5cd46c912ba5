// Findings' gains from their own replay (docs/findings.md, "Gains by
// replay"): where the step of every rank can be replayed (step_replay.h),
// a finding whose remedy the replay can express gets as its gain what the
// replayed step loses with that remedy, and the "all findings applied"
// projection replays every such remedy together, so savings that overlap
// count once by construction. The other findings keep their own estimates.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/cluster/cluster.h"
#include "analysis/cluster/step_replay.h"
#include "analysis/common/finding.h"
#include "analysis/common/findings_catalog.h"

namespace trainscope::analysis {

// The change a finding's remedy makes to the step, when the replay can
// express it: a fingerprint's chain fused (each rank's saving from its own
// evidence), a straggler at its peers' pace, the step-start skew bound down
// to its residual (skew_residual_pct of the mean step), exposed
// communication overlapped down to the normal band (exposed_comm_normal of
// the worst rank's exposed share kept), the all-gathers of a pseudo-overlap
// prefetched, a slow matmul shape at its yardstick's rate (each rank's
// lost time), the host's idle removed on the finding's ranks (host-bound:
// launches; input-bound: the data loader; host-sync: syncs), every slow link
// at its transport's mean bandwidth.
// nullopt for the others.
std::optional<ReplayChange> RemedyAsChange(const Finding& finding, const ClusterAnalysis& cluster,
                                           const FindingThresholds& thresholds);

// Replaces the gains of |findings| the replay can express with their
// replayed ones (gain_replayed, gain_model extended by the catalogue's
// "_replayed-gain" sentence), adds each to |cluster|'s critical path
// what-ifs and sets its findings_together_gain_pct (all of them replayed
// together). Nothing changes, and the path's replay_note says why, when the
// unchanged replay is more than replay_max_error_pct off the measured span.
void ReplayFindingGains(const StepReplay& replay, const FindingCatalog& catalog,
                        ClusterAnalysis* cluster, std::vector<Finding>* findings);

}  // namespace trainscope::analysis
