#include "analysis/job_stages.h"

namespace trainscope::analysis {

// Stub until the Fingerprints work lands.
void AddFingerprintAnalysis(const std::vector<model::RankProfile>&, const FamilyRules&, unsigned,
                            JobAnalysis*) {}

}  // namespace trainscope::analysis
