// Finding the rank directories under the paths a user gives.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "formats/importer.h"
#include "model/input_issue.h"

namespace trainscope::formats {

// One rank to load: the importer that claimed it (importer_registry.h).
struct ProfileLocation {
  const Importer* importer = nullptr;
  std::string path;    // the rank directory, or the trace file
  int rank_hint = -1;  // rank from profiler_info_<rank>.json's file name, -1 if unknown
};

// A job-level input (training log, job metadata, later memory files): an
// input that belongs to the whole job, not to one rank. Claimed by an
// importer of ImportScope::kJob; listed here so the stages that will use
// them find them beside the ranks. No importer of that scope exists yet.
struct JobFile {
  std::string path;
  std::string_view importer;  // Importer::name
};

struct Discovery {
  std::vector<ProfileLocation> profiles;  // sorted by rank (unknown ranks last, then by path)
  std::vector<JobFile> job_files;         // sorted by path
  // What a job directory held that was not taken, with the reason, sorted by
  // path: *.json / *.json.gz files that are not traces (or are unreadable,
  // or a damaged gzip), FIFOs, sockets and devices (never opened), symlink
  // loops and dangling links, symlinked directories (not followed),
  // directories that cannot be listed.
  std::vector<model::InputIssue> skipped;
};

// |path| may be a job directory (ranks at any depth), a rank directory
// (*_ascend_pt), an ASCEND_PROFILER_OUTPUT directory, a Kineto trace file
// (.json / .json.gz) or a directory of trace files (any depth; a file is a
// trace when its top-level object has a "traceEvents" or "schemaVersion" key,
// see kineto_sniff.h). Which directory or file is a rank is the registry's
// answer (GuessImporter): a directory an importer claims is a rank and is not
// descended into; a file an importer declines with a reason is listed in
// |skipped|. Only regular files are ever opened.
// Errors (exit code 2): kNotFound when |path| does not exist or nothing
// usable is under it (the message lists what was skipped and why), and
// kInvalidInput when |path| itself is not usable (a symlink loop, a FIFO, a
// file that is not a trace), each with a hint.
Result<Discovery> DiscoverProfiles(const std::string& path);

// "  <path>: <first line of reason>" lines for up to |limit| issues, then
// "  ... and N more"; for error messages.
std::string ListIssues(const std::vector<model::InputIssue>& issues, size_t limit);

}  // namespace trainscope::formats
