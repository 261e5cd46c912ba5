// The stages of the two-phase analysis (rank_analysis.h), each in its own
// file: motifs and fingerprints of one step of one rank
// (fingerprint_stage.cc), and the cluster analysis of the job from every
// rank's communication summary (cluster_stage.cc).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "analysis/cluster/step_replay.h"
#include "analysis/common/finding.h"
#include "analysis/common/findings_catalog.h"
#include "analysis/job/rank_analysis.h"
#include "analysis/motifs/fingerprint_attribution.h"
#include "analysis/motifs/fingerprint_library.h"
#include "analysis/motifs/fingerprint_match.h"
#include "analysis/motifs/motif_step.h"
#include "analysis/step/kernel_distribution.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

// fingerprint_stage.cc: what the motif mining of one rank's steps shares.
struct RankMotifContext {
  const FingerprintLibrary& library;
  const HostAttributor& host;
  const FindingCatalog& catalog;                 // texts and thresholds of the findings
  FingerprintAcceptMemo* accept_memo = nullptr;  // for |library|, shared by the rank's steps
  MiningMemo* mining_memo = nullptr;             // shared by the job's ranks
};

// Mines the motifs of |step|: its kernels only, so it can run beside the
// step's other measures (AddStepMotifs sets their shares of the step).
// nullopt for a step without kernels.
std::optional<StepMotifs> MineStepMotifs(const model::RankProfile& profile,
                                         const RankMotifContext& context, int32_t step);

// Puts the step's mined motifs into step->motifs, their shares measured
// against the step's time budget, and returns the step's fingerprint
// findings (unfused-*, glue-around-custom-op, ...). A step without kernels
// has neither.
std::vector<Finding> AddStepMotifs(const model::RankProfile& profile,
                                   const RankMotifContext& context, std::optional<StepMotifs> mined,
                                   StepDistribution* step);

// cluster_stage.cc: cross-rank communication, stragglers, skew, slow links
// and their findings. |comm| and |links| in job order (sorted by rank).
// Returns the compared step's replay (step_replay.h; built from the same
// ranks as the critical path, so there is one only where the path is), for
// the findings' gains once every finding is made (findings/replayed_gains.h).
std::optional<StepReplay> AddClusterAnalysis(std::vector<RankComm> comm,
                                             const std::vector<RankLinks>& links, JobAnalysis* job,
                                             const FindingCatalog& catalog);

}  // namespace trainscope::analysis
