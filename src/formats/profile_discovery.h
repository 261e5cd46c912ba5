// Finding the rank directories under the paths a user gives.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace trainscope::formats {

enum class ProfileKind { kAscendRank };

struct ProfileLocation {
  ProfileKind kind = ProfileKind::kAscendRank;
  std::string path;      // the *_ascend_pt directory
  int rank_hint = -1;    // rank from profiler_info_<rank>.json's file name, -1 if unknown
};

// |path| may be a job directory (ranks at any depth), a rank directory
// (*_ascend_pt) or an ASCEND_PROFILER_OUTPUT directory. Results are sorted by
// rank (unknown ranks last, then by path). kNotFound when nothing usable is
// under |path|, with a hint naming what was expected.
Result<std::vector<ProfileLocation>> DiscoverProfiles(const std::string& path);

}  // namespace trainscope::formats
