// l2_cache.csv -> RankProfile::l2_cache (experimental_config l2_cache=True):
// per device task L2 hit and victim rates, with or without a leading
// Device_id column.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "model/rank_profile.h"

namespace trainscope::formats {

// Appends rows to profile->l2_cache and a ledger to profile->ledgers, sets
// has_l2_cache. InvalidInput when the header has no Op Name.
Status ParseL2Cache(std::string_view data, const std::string& file_label,
                    model::RankProfile* profile);
Status ReadL2CacheFile(const std::string& path, model::RankProfile* profile);

}  // namespace trainscope::formats
