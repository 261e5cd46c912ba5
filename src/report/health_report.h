// `trainscope health` output: the text summary and the JSON document
// (schema trainscope.health/2, docs/json-schema.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/health/flight_recorder.h"
#include "analysis/health/scaling.h"
#include "analysis/health/training_health.h"
#include "core/row_ledger.h"

namespace trainscope::report {

inline constexpr std::string_view kHealthJsonSchema = "trainscope.health/2";

struct HealthRun {
  analysis::RunHealth health;  // findings rendered
  RowLedger ledger;
  int64_t bytes = 0;
  std::string warning;  // e.g. a gzip stream cut off: the lines before it were read
  // A file is cut into series (runs x ranks): the first carries the file's
  // line ledger, the others say they share it.
  bool first_of_file = true;
  size_t log_index = 0;  // the log (of those read) the series is from
  // Why nothing of the file was read (no training line recognised, not
  // text); empty when records were read. With the first lines it showed.
  std::string not_read;
  std::vector<std::string> first_lines;
};

// A series with fewer records says "cannot conclude", never "healthy".
inline constexpr int64_t kHealthMinRecords = 3;

// True when a log was not read, or not to its end (a damaged gzip stream):
// `trainscope health` exits 2 then (docs/health.md).
bool AnyLogNotRead(const std::vector<HealthRun>& runs);

// What spans the runs: the --scaling table, the flight-recorder dumps found
// next to the logs (null when none).
struct HealthExtras {
  const analysis::ScalingTable* scaling = nullptr;
  const analysis::FlightRecorderReport* flight = nullptr;
  std::vector<std::string> flight_pickles;  // the dumps read from a pickle
  std::vector<std::string> flight_errors;
};

// The one-line verdict ("healthy: ...", "not read: ...", "N finding(s) ...").
std::string FullVerdict(const std::vector<HealthRun>& runs, const HealthExtras& extras);
// "run 2 of 2 (restart: step 1 after 13), rank 3 of 8 ranks"; "" for a
// file that is one series naming no rank.
std::string HealthSeriesName(const analysis::RunHealth& h);

std::string RenderHealthText(const std::vector<HealthRun>& runs, const HealthExtras& extras = {});
std::string RenderHealthJson(const std::vector<HealthRun>& runs, std::string_view version,
                             const HealthExtras& extras = {});
// A self-contained page: per run the curves with the findings marked; the
// scaling table and chart and the flight recorder first when given.
std::string RenderHealthHtml(const std::vector<HealthRun>& runs, std::string_view version,
                             const HealthExtras& extras = {});

}  // namespace trainscope::report
