// Discovering and loading every rank under the paths a user gives.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "model/rank_profile.h"
#include "model/timeline_classify.h"

namespace trainscope::formats {

// Runs DiscoverProfiles on each path, loads all ranks in parallel on up to
// |threads| threads and returns them sorted by rank. A profile's rank is the
// rank in its profiler_info_<N>.json file name, else rank_id inside it, else
// its index in discovery order. Fails, naming the rank directory, if any
// rank cannot be loaded (no kernel_details.csv and no step_trace_time.csv,
// or an unusable kernel_details.csv header).
// |activity_rules|: name rules for Kineto device activities (nullptr = the
// built-in ones, see trace::ScanOptions).
Result<std::vector<model::RankProfile>> LoadProfiles(const std::vector<std::string>& paths,
                                                     unsigned threads,
                                                     const std::vector<model::ClassRule>* activity_rules = nullptr);

}  // namespace trainscope::formats
