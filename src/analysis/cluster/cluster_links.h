// Slow links from communication_matrix.json: a link whose bandwidth is
// below a share (20%, CANN's advice) of the mean of its transport type.
// Only links that moved >= 1 MB per step are compared (smaller ones are
// latency-bound); links_checked counts those.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/cluster/cluster.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

// The link records of one rank (communication_matrix.json), kept by the
// rank's own analysis so that the profile can be freed.
struct RankLinks {
  int32_t rank = -1;  // -1: unknown, the rank's index in the job is used
  std::vector<model::CommLinkRecord> links;
};

std::vector<SlowLink> FindSlowLinks(const std::vector<RankLinks>& ranks, double max_ratio,
                                    int64_t* links_checked);

}  // namespace trainscope::analysis
