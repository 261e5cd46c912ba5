// Importer: one input format trainscope reads, as a pair of functions that
// say whether a path is theirs (Sniff) and read it into a rank (Load).
//
// Models: Perfetto's TraceImporterRegistry (trace_type.h: each importer
// guesses, the best guess wins) and bloaty's TryOpen* chain. Discovery asks
// the registry (importer_registry.h) about every directory and file it
// walks, so a new format is one new folder plus one line in the registry,
// never an edit of discovery or the loader.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "model/rank_profile.h"
#include "model/timeline_classify.h"

namespace trainscope::formats {

// What an importer looks at: a rank directory or a single file.
enum class InputShape : uint8_t { kDirectory, kFile };

// What an importer produces: one rank's profile, or a job-level input (a
// training log, job metadata) that belongs beside the ranks (JobFile).
enum class ImportScope : uint8_t { kRank, kJob };

struct SniffVerdict {
  // 0: not this importer's input. Otherwise higher wins when two importers
  // claim the same path (a rank with CSVs and .db files is a text rank).
  int confidence = 0;
  // Why not, when the path looked like this importer's (a .json that is
  // not a trace: "no traceEvents key in the top-level object"): discovery
  // lists it as skipped with this reason. Empty: not worth a line.
  std::string reason;
};

struct ImportOptions {
  // Parser threads for one big file (ranks already load in parallel).
  unsigned threads = 1;
  // Name rules for Kineto device activities (nullptr: the built-in ones).
  const std::vector<model::ClassRule>* activity_rules = nullptr;
};

struct Importer {
  std::string_view name;         // stable: "ascend-text", "ascend-db", "kineto"
  std::string_view description;  // one line, for docs and messages
  InputShape shape;
  ImportScope scope;
  // Must never block or open anything but regular files (hostile input).
  // |named|: the user gave this path itself, so its content is looked at
  // whatever its name (in a walk, names narrow what is opened).
  SniffVerdict (*sniff)(const std::string& path, bool named);
  // kRank importers: the rank at |path|. kJob importers are listed only.
  Result<model::RankProfile> (*load)(const std::string& path, const ImportOptions& options);
};

}  // namespace trainscope::formats
