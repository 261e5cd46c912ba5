// Discovering and loading every rank under the paths a user gives.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "model/rank_profile.h"

namespace trainscope::formats {

// Runs DiscoverProfiles on each path, loads all ranks in parallel on up to
// |threads| threads and returns them sorted by rank. A profile's rank is the
// rank in its profiler_info_<N>.json file name, else rank_id inside it, else
// its index in discovery order. Fails, naming the rank directory, if any
// rank cannot be loaded (no kernel_details.csv and no step_trace_time.csv,
// or an unusable kernel_details.csv header).
Result<std::vector<model::RankProfile>> LoadProfiles(const std::vector<std::string>& paths,
                                                     unsigned threads);

}  // namespace trainscope::formats
