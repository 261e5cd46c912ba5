// The Ascend database importer: a torch_npu rank directory whose
// ASCEND_PROFILER_OUTPUT holds only the SQLite export
// (ascend_pytorch_profiler_<rank>.db, analysis.db; export_type Db).
//
// Load reads it with LoadAscendDbRank (ascend_db_reader.h) into the same
// model the text export fills.
#pragma once

#include <string>

#include "core/status.h"
#include "formats/importer.h"

namespace trainscope::formats {

// Sniff: 50 when ASCEND_PROFILER_OUTPUT holds ascend_pytorch_profiler*.db or
// analysis.db starting with the SQLite header (below the text importer's
// 100: newer torch_npu writes the .db files beside the CSVs too).
extern const Importer kAscendDbImporter;

// Ok when |path| is a regular file starting with "SQLite format 3\0";
// otherwise kInvalidInput saying why, e.g. "<path>: cannot open: Permission
// denied", "<path>: dangling symbolic link ...", "<path>: not a regular file
// (FIFO)", "<path>: not a SQLite database (...)". Opens regular files only;
// never blocks.
Status CheckSqliteHeader(const std::string& path);
bool HasSqliteHeader(const std::string& path);

}  // namespace trainscope::formats
