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

// Links below |max_ratio| of their transport's mean bandwidth. A link that
// moved less than |min_mb_per_step| MB per step on average is latency-bound
// (its bytes over time measure the handshake) and is neither judged nor
// averaged into its transport's mean (data/thresholds.tsv slow_link_ratio,
// slow_link_min_mb).
// The rank x rank matrix: per (src, dst, transport) between different
// ranks, the summed size and time of the links' "total" records (every
// record where a matrix has no totals), over every group and step. Local
// ids become global ranks by the self links, as in FindSlowLinks. Records
// with an unusable size or time are left out.
std::vector<LinkCell> BuildLinkMatrix(const std::vector<RankLinks>& ranks);

std::vector<SlowLink> FindSlowLinks(const std::vector<RankLinks>& ranks, double max_ratio,
                                    double min_mb_per_step, int64_t* links_checked);

}  // namespace trainscope::analysis
