// The Kineto importer: one PyTorch profiler (Kineto) Chrome trace file,
// .json or .json.gz, recognised by content (kineto_sniff.h), read by
// ReadKinetoTrace.
#pragma once

#include "formats/importer.h"

namespace trainscope::formats {

// Sniff: 100 for a .json / .json.gz whose top-level object has a
// "traceEvents" or "schemaVersion" key; for another .json / .json.gz the
// reason it is not a trace (trainscope's own outputs are passed over
// silently); other names are not looked at.
extern const Importer kKinetoImporter;

}  // namespace trainscope::formats
