// Slow links from communication_matrix.json: a link whose bandwidth is
// below a share (20%, CANN's advice) of the mean of its transport type.
// Only links that moved >= 1 MB per step are compared (smaller ones are
// latency-bound); links_checked counts those.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/cluster.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

std::vector<SlowLink> FindSlowLinks(const std::vector<model::RankProfile>& profiles,
                                    double max_ratio, int64_t* links_checked);

}  // namespace trainscope::analysis
