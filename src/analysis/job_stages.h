// Job-level analysis stages that run after every rank is analysed. Each
// stage lives in its own file and adds to JobAnalysis (motifs and
// fingerprints, cluster analysis, findings).
#pragma once

#include <vector>

#include "analysis/family_rules.h"
#include "analysis/findings_catalog.h"
#include "analysis/fingerprint_library.h"
#include "analysis/rank_analysis.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

// fingerprint_stage.cc: motifs per rank and step, fingerprint matching,
// expected gains, fingerprint findings (unfused-*, glue-around-custom-op,
// exposed-communication, host-bound, dominant-operator).
// |library| nullptr: the built-in data/fingerprints.tsv.
void AddFingerprintAnalysis(const std::vector<model::RankProfile>& profiles,
                            const FamilyRules& rules, const FingerprintLibrary* library,
                            unsigned threads, JobAnalysis* job,
                            const FindingCatalog* catalog = nullptr);

// cluster_stage.cc: cross-rank communication, stragglers, skew, slow links
// and their findings.
void AddClusterAnalysis(const std::vector<model::RankProfile>& profiles, unsigned threads,
                        JobAnalysis* job, const FindingCatalog* catalog = nullptr);

}  // namespace trainscope::analysis
