// Readers of torch_npu's SQLite export (export_type=db):
// ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_<rank>.db and analysis.db,
// into the same model the text export fills (docs/ingest.md, "The .db
// export": the tables and columns read, and the variants between versions).
//
// Every database is opened read-only and immutable (sqlite_db.h). A table
// the reader needs that is missing, or lacks a required column, fails that
// file with the file, the table and a hint; rows are accounted per table in
// a RowLedger named "<file>:<TABLE>".
#pragma once

#include <string>

#include "core/status.h"
#include "model/rank_profile.h"

namespace trainscope::formats {

// ascend_pytorch_profiler_<rank>.db: compute kernels (TASK joined with
// COMPUTE_TASK_INFO, names from STRING_IDS), communication ops
// (COMMUNICATION_OP), steps (STEP_TIME), the rank (RANK_DEVICE_MAP),
// ENV_VARIABLES (META_DATA), the memory tables, and the host ops
// (PYTORCH_API, call stacks from PYTORCH_CALLCHAINS, launch links from
// CONNECTION_IDS) into |profile|. The device events are the rows
// kernel_details.csv of the same capture has; the host ops and launchers
// are what trace_view.json gives the text export. The kernels are decoded
// on |threads| connections when TASK is big (db_tiled_scan.h).
Status ReadAscendProfilerDb(const std::string& path, model::RankProfile* profile,
                            unsigned threads = 1);

// analysis.db: StepTraceTime (the step_trace_time.csv of the db export)
// into profile->step_trace; CommAnalyzerTime + CommAnalyzerBandwidth and
// CommAnalyzerMatrix (communication.json, communication_matrix.json) into
// profile->communication. Each table is optional.
Status ReadAnalysisDb(const std::string& path, model::RankProfile* profile);

// One rank directory (a *_ascend_pt directory, or its ASCEND_PROFILER_OUTPUT)
// of the db export: the .db files above plus profiler_info_<rank>.json and
// profiler_metadata.json. Fails when ascend_pytorch_profiler_*.db is absent
// or unusable; analysis.db and the JSON files are optional.
// |threads|: for the rank database's kernels.
Result<model::RankProfile> LoadAscendDbRank(const std::string& rank_dir, unsigned threads = 1);

}  // namespace trainscope::formats
