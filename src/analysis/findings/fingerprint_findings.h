// Findings from fingerprint instances (unfused-*, glue-around-custom-op,
// cast-chain...) and the merge of one rank's findings into the job's.
#pragma once

#include <vector>

#include "analysis/common/finding.h"
#include "analysis/common/findings_catalog.h"
#include "analysis/motifs/fingerprint_library.h"
#include "analysis/motifs/motif_step.h"

namespace trainscope::analysis {

// One Finding per fingerprint id seen at least |min_instances| times in the
// step (variants, e.g. forward and backward chains, together), as data: its
// text is the catalogue's "fingerprint" entry filled with the library's row
// (template_entry), made by RenderFindings.
std::vector<Finding> FingerprintFindings(int32_t rank, int32_t step, const StepMotifs& motifs,
                                         const FingerprintLibrary& library,
                                         int64_t min_instances = 2);

// Merges per-rank findings with the same id into one: ranks listed,
// occurrences = the largest per-rank count, gain = the mean over the ranks
// where it was seen, evidence of the rank with the largest gain.
std::vector<Finding> MergeRankFindings(std::vector<std::vector<Finding>> per_rank);

}  // namespace trainscope::analysis
