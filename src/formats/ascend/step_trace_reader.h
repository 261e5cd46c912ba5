// step_trace_time.csv -> RankProfile::step_trace.
//
// All header generations parse: with or without a leading Device_id
// (torch_npu 2025-06+), with or without Preparing (2024-04+). Step may be
// empty when the capture had no ProfilerStep; see docs/ascend-formats.md 2.3.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "model/rank_profile.h"

namespace trainscope::formats {

// Appends rows to profile->step_trace and a ledger to profile->ledgers.
// InvalidInput when Computing or Communication is missing from the header.
Status ParseStepTraceTime(std::string_view data, const std::string& file_label,
                          model::RankProfile* profile);
Status ReadStepTraceTimeFile(const std::string& path, model::RankProfile* profile);

}  // namespace trainscope::formats
