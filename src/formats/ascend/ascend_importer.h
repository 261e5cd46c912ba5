// The Ascend text importer: a torch_npu rank directory (*_ascend_pt) with
// its parsed ASCEND_PROFILER_OUTPUT CSV/JSON files (LoadAscendRank).
#pragma once

#include "formats/importer.h"

namespace trainscope::formats {

// Sniff: 100 when ASCEND_PROFILER_OUTPUT holds kernel_details.csv or
// step_trace_time.csv (any directory name: fixtures, renamed copies); 10 for
// a directory named *_ascend_pt without them (raw PROF_* data or a partial
// copy: the load then says what is missing), so a .db-only rank goes to the
// .db importer.
extern const Importer kAscendTextImporter;

}  // namespace trainscope::formats
