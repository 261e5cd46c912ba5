// What `trainscope demo --out DIR` may do to DIR.
//
// demo rewrites its job on every run, but must never delete what it did not
// create (`--out .` used to empty the current directory). DIR may be absent,
// empty, or hold a job synth wrote (its manifest, synth/manifest.h, lists
// every file and directory), plus the report demo wrote there. Anything
// else, or a job with files added since, is refused untouched.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace trainscope::cli {

struct DemoDirPlan {
  std::string dir;
  bool exists = false;
  std::vector<std::string> files;  // ours, to remove (DIR-relative)
  std::vector<std::string> dirs;   // ours, to remove when empty, deepest first
};

// Looks at |dir| without changing anything. A UsageError (exit 2) naming
// |dir| and the first entry trainscope did not write, with a hint, when |dir|
// is neither absent, empty nor a previous job.
Result<DemoDirPlan> InspectDemoDir(const std::string& dir);

// Removes exactly the entries |plan| lists (directories only with rmdir, so
// a file that appeared meanwhile stops it instead of being deleted).
Status ClearDemoDir(const DemoDirPlan& plan);

}  // namespace trainscope::cli
