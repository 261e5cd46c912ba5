// api_statistic.csv -> RankProfile::api_statistic (CANN host API statistics,
// Level1+ only; totals over the whole capture, not per step). With or
// without the CANN 8.x leading Device_id column ("host"); the Level names
// drift (hccl -> communication) and are kept as written.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "model/rank_profile.h"

namespace trainscope::formats {

// Appends rows to profile->api_statistic, sets has_api_statistic and adds a
// ledger to profile->ledgers. InvalidInput when API Name, Time(us) or Count
// is missing from the header.
Status ParseApiStatistic(std::string_view data, const std::string& file_label,
                         model::RankProfile* profile);
Status ReadApiStatisticFile(const std::string& path, model::RankProfile* profile);

}  // namespace trainscope::formats
