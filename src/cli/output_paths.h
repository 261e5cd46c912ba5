// Checks on --json / --html output paths, made before any analysis runs.
//
// trainscope never overwrites what it did not create: an output path may not
// be one of the inputs (compared by device and inode, symlinks resolved), two
// outputs may not share a file, and an existing file is replaced only when
// it evidently is a trainscope report (IsTrainscopeReport). The directory
// must exist and be writable. Every refusal is a usage error (exit 2) naming
// the option, the path and the reason, with a hint.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace trainscope::cli {

struct OutputPath {
  std::string option;  // "--json", "--html": for messages
  std::string path;    // "" = not requested, "-" = standard output
};

// |inputs|: every path the command reads (profiles, rule files); files and
// directories, absent ones are ignored (loading reports them).
Status CheckOutputPaths(const std::vector<OutputPath>& outputs,
                        const std::vector<std::string>& inputs);

// True when the regular file at |path| starts like a report trainscope
// writes: a JSON object whose "schema" is trainscope's (report/json_report.h,
// compare, health, the annotated trace: "trainscope.*"), an HTML page with
// trainscope's generator <meta> (or, from before that tag, its <title>), or
// an SQLite database whose meta table names trainscope's schema
// (export/sqlite_export.h).
bool IsTrainscopeReport(const std::string& path);

}  // namespace trainscope::cli
