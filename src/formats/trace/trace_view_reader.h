// Reader for Ascend torch_npu trace_view.json (ASCEND_PROFILER_OUTPUT).
//
// Top-level array; ts as decimal strings (µs, parsed to int64 ns); flow ids
// beyond 2^53; pids meaningful only through process_name metadata. Device
// activities are the X events of "Ascend Hardware" (stream = tid) and the
// op-level events of the HCCL/Communication "Group ... Communication"
// threads (kind communication); "Overlap Analysis" segments are kept in
// Timeline::overlap for cross-checks against step_trace_time.csv.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "formats/trace/scan_options.h"
#include "model/rank_profile.h"

namespace trainscope::formats {

// Device tasks are appended to profile->device_events only when the table is empty
// on entry (kernel_details.csv, read first, is the richer source).
Status ReadTraceView(const std::string& path, model::RankProfile* profile,
                     const trace::ScanOptions& options = {});
Status ParseTraceView(std::string_view json, const std::string& label, model::RankProfile* profile,
                      const trace::ScanOptions& options = {});

}  // namespace trainscope::formats
