#include "analysis/job_stages.h"

namespace trainscope::analysis {

// Stub until the Clusters work lands.
void AddClusterAnalysis(const std::vector<model::RankProfile>& profiles, unsigned, JobAnalysis* job) {
  job->cluster.ranks = static_cast<int32_t>(profiles.size());
}

}  // namespace trainscope::analysis
