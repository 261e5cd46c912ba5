// Finding the rank directories under the paths a user gives.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace trainscope::formats {

enum class ProfileKind {
  kAscendRank,   // a *_ascend_pt directory
  kKinetoTrace,  // one PyTorch profiler / Kineto Chrome trace file (.json, .json.gz)
};

struct ProfileLocation {
  ProfileKind kind = ProfileKind::kAscendRank;
  std::string path;      // the *_ascend_pt directory, or the trace file
  int rank_hint = -1;    // rank from profiler_info_<rank>.json's file name, -1 if unknown
};

// |path| may be a job directory (ranks at any depth), a rank directory
// (*_ascend_pt), an ASCEND_PROFILER_OUTPUT directory, a Kineto trace file
// (.json / .json.gz) or a directory of trace files (any depth; a file is a
// trace when its first bytes hold "traceEvents" or "schemaVersion"). Results are sorted by
// rank (unknown ranks last, then by path). kNotFound when nothing usable is
// under |path|, with a hint naming what was expected.
Result<std::vector<ProfileLocation>> DiscoverProfiles(const std::string& path);

}  // namespace trainscope::formats
