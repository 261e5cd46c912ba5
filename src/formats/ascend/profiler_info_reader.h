// profiler_info_<rank>.json / profiler_info.json -> model::CaptureInfo.
//
// Only what diagnosis needs: rank, torch_npu and CANN versions, profiler
// level and aic_metrics. See docs/ascend-formats.md 2.14.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "model/rank_profile.h"

namespace trainscope::formats {

// Fills |info| from the JSON text. rank_id may be a string ("0", 2025Q4) or
// an int (older). InvalidInput on malformed JSON; fields read before the
// error stay set.
Status ParseProfilerInfo(std::string_view json, const std::string& file_label,
                         model::CaptureInfo* info);

// Reads the file, then lets the rank in the file name override rank_id, as
// msprof-analyze does (the name is what cluster tools key on).
Status ReadProfilerInfoFile(const std::string& path, model::CaptureInfo* info);

// "profiler_info_12.json" -> 12; "profiler_info.json" or anything else -> nullopt.
std::optional<int32_t> RankFromProfilerInfoName(std::string_view file_name);

}  // namespace trainscope::formats
