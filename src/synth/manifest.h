// The manifest synth leaves in a job directory: every file and directory it
// wrote there, one per line.
//
// It is what lets `trainscope demo --out DIR` rewrite a previous demo job
// without deleting anything it did not create: demo removes exactly the
// entries listed here that are still there with the same type, and refuses a
// directory holding anything else.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace trainscope::synth {

inline constexpr const char* kManifestName = "trainscope-manifest.txt";

struct ManifestEntry {
  char type = 'f';   // 'f' regular file, 'd' directory
  std::string path;  // relative to the job directory, '/'-separated, no "." or ".."
  bool operator==(const ManifestEntry&) const = default;
};

// Writes DIR/kManifestName listing everything now under |dir| (sorted; the
// manifest itself is not listed). Call only on a directory that was empty or
// absent before this job was written: everything in it is then ours.
Status WriteManifest(const std::string& dir);

// Adds |entries| (files written later into the job, e.g. demo's report.html).
Status AppendToManifest(const std::string& dir, const std::vector<ManifestEntry>& entries);

// The entries of DIR/kManifestName. NotFound when there is none; lines that
// are not a well-formed relative entry (absolute, "..", unknown type) are
// dropped, so a damaged manifest can only make demo refuse, never reach
// outside DIR.
Result<std::vector<ManifestEntry>> ReadManifest(const std::string& dir);

}  // namespace trainscope::synth
