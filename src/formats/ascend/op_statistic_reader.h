// op_statistic.csv -> RankProfile::op_statistic (Level1+ only; compute ops,
// no HCCL). With or without the CANN 8.x leading Device_id column.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "model/rank_profile.h"

namespace trainscope::formats {

// Appends rows to profile->op_statistic and a ledger to profile->ledgers.
// InvalidInput when OP Type, Count or Total Time(us) is missing.
Status ParseOpStatistic(std::string_view data, const std::string& file_label,
                        model::RankProfile* profile);
Status ReadOpStatisticFile(const std::string& path, model::RankProfile* profile);

}  // namespace trainscope::formats
