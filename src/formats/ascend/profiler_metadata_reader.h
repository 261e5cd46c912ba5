// profiler_metadata.json -> model::CaptureInfo (ENV_VARIABLES,
// distributed_args sizes and world_size). See docs/ascend-formats.md 2.15.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "model/rank_profile.h"

namespace trainscope::formats {

// distributed_args: every integer "*_size" key except world_size goes to
// parallel_sizes, world_size to world_size. InvalidInput on malformed JSON.
Status ParseProfilerMetadata(std::string_view json, const std::string& file_label,
                             model::CaptureInfo* info);
Status ReadProfilerMetadataFile(const std::string& path, model::CaptureInfo* info);

}  // namespace trainscope::formats
