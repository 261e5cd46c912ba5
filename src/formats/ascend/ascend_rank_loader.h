// Loading one Ascend rank directory into a model::RankProfile.
//
// A rank directory is a `*_ascend_pt` directory (profiler_info_<rank>.json,
// profiler_metadata.json, ASCEND_PROFILER_OUTPUT/...). Files are read by name;
// optional files that are absent are listed in RankProfile::missing_files.
#pragma once

#include <string>

#include "core/status.h"
#include "model/rank_profile.h"

namespace trainscope::formats {

// Loads kernel_details.csv, step_trace_time.csv, op_statistic.csv,
// profiler_info*.json and profiler_metadata.json from |rank_dir| (the
// *_ascend_pt directory; an ASCEND_PROFILER_OUTPUT directory is accepted too
// and its parent is used for the JSON files).
// Fails (kNotFound / kInvalidInput) only when kernel_details.csv is missing or
// unusable; every other problem is recorded in the profile's ledgers/warnings.
// |threads|: parser threads for the rank's big file (kernel_details.csv).
Result<model::RankProfile> LoadAscendRank(const std::string& rank_dir, unsigned threads = 1);

// Whether anything at all is at |path| (lstat: a FIFO, a device or a
// dangling symlink counts). A file the loader would reject still makes a
// rank, so its problem is reported, not taken as "absent"; never opens it.
bool PresentInAnyForm(const std::string& path);

// profiler_info_<rank>.json in |source_dir|, or profiler_info.json in
// single-card runs; with several, the lowest rank. "" when there is none.
std::string FindProfilerInfoFile(const std::string& source_dir);

}  // namespace trainscope::formats
