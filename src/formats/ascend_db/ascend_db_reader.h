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

// How a .db export is read; what is read never depends on it.
struct DbReadOptions {
  unsigned threads = 1;
  // TASK rows from which the kernels are decoded on |threads| more
  // connections (below, the connections cost more than they save: a 1 M-row
  // TASK is ~0.3 s of decoding), and the rows one of them decodes at a time:
  // enough that a tile's reset and seek cost nothing beside its rows, few
  // enough that a window of 4 tiles a thread stays a few MB (16 Ki rows of
  // 17 cells: 2.5 MB). Tests and the fuzzer lower both to take that path on
  // small databases (db_tiled_scan.h).
  int64_t parallel_rows = int64_t{1} << 20;
  int64_t tile_rows = int64_t{1} << 14;
};

// ascend_pytorch_profiler_<rank>.db: compute kernels (TASK joined with
// COMPUTE_TASK_INFO, names from STRING_IDS), communication ops
// (COMMUNICATION_OP), steps (STEP_TIME), the rank (RANK_DEVICE_MAP),
// ENV_VARIABLES (META_DATA), the memory tables, and the host ops
// (PYTORCH_API, call stacks from PYTORCH_CALLCHAINS, launch links from
// CONNECTION_IDS) into |profile|. The device events are the rows
// kernel_details.csv of the same capture has; the host ops and launchers
// are what trace_view.json gives the text export. The kernels are decoded
// on options.threads connections when TASK is big (db_tiled_scan.h).
Status ReadAscendProfilerDb(const std::string& path, model::RankProfile* profile,
                            const DbReadOptions& options = {});

// analysis.db: StepTraceTime (the step_trace_time.csv of the db export)
// into profile->step_trace; CommAnalyzerTime + CommAnalyzerBandwidth and
// CommAnalyzerMatrix (communication.json, communication_matrix.json) into
// profile->communication. Each table is optional.
Status ReadAnalysisDb(const std::string& path, model::RankProfile* profile);

// One rank directory (a *_ascend_pt directory, or its ASCEND_PROFILER_OUTPUT)
// of the db export: the .db files above plus profiler_info_<rank>.json and
// profiler_metadata.json. Fails when ascend_pytorch_profiler_*.db is absent
// or unusable; analysis.db and the JSON files are optional.
// |options|: for the rank database's kernels.
Result<model::RankProfile> LoadAscendDbRank(const std::string& rank_dir,
                                            const DbReadOptions& options = {});

}  // namespace trainscope::formats
