// The report's tables as CSV files (`analyze --csv DIR`), RFC 4180: fields
// with a comma, quote, CR or LF are quoted, quotes doubled, lines end in
// CRLF; a header row names the columns (docs/exports.md). Times are
// microseconds with three decimals (exact from the int64 ns), unknown
// values empty cells.
//
// trainscope never overwrites what it did not create: DIR is created when
// absent; in an existing DIR a file is replaced only when DIR's manifest
// (kCsvManifest, written by an earlier --csv) lists it, and every other file
// there is left alone.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "analysis/job/rank_analysis.h"
#include "core/status.h"

namespace trainscope::exports {

inline constexpr const char* kCsvManifest = "trainscope-csv-manifest.txt";

// (file name, contents) of every table, in a fixed order.
std::vector<std::pair<std::string, std::string>> RenderCsvTables(const analysis::JobAnalysis& job);

// One CSV field, quoted when it must be (RFC 4180).
void AppendCsvField(std::string* out, std::string_view field);

// Checks --csv DIR before any work: DIR absent (its parent writable), or a
// writable directory in which no table file exists that trainscope did not
// write. |inputs|: the run's inputs, which DIR may not be or lie inside of.
Status CheckCsvDir(const std::string& dir, const std::vector<std::string>& inputs);

// Creates DIR when absent and writes every table and the manifest.
Status WriteCsvTables(const std::string& dir, const analysis::JobAnalysis& job);

}  // namespace trainscope::exports
