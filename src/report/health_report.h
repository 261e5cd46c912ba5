// `trainscope health` output: the text summary and the JSON document
// (schema trainscope.health/1, docs/json-schema.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/health/flight_recorder.h"
#include "analysis/health/scaling.h"
#include "analysis/health/training_health.h"
#include "core/row_ledger.h"

namespace trainscope::report {

inline constexpr std::string_view kHealthJsonSchema = "trainscope.health/1";

struct HealthRun {
  analysis::RunHealth health;  // findings rendered
  RowLedger ledger;
  int64_t bytes = 0;
  std::string warning;  // e.g. a gzip stream cut off: the lines before it were read
};

// What spans the runs: the --scaling table, the flight-recorder dumps found
// next to the logs (null when none).
struct HealthExtras {
  const analysis::ScalingTable* scaling = nullptr;
  const analysis::FlightRecorderReport* flight = nullptr;
  std::vector<std::string> flight_pickles;  // pickled dumps: named, not read
  std::vector<std::string> flight_errors;
};

std::string RenderHealthText(const std::vector<HealthRun>& runs, const HealthExtras& extras = {});
std::string RenderHealthJson(const std::vector<HealthRun>& runs, std::string_view version,
                             const HealthExtras& extras = {});
// A self-contained page: per run the curves with the findings marked; the
// scaling table and chart and the flight recorder first when given.
std::string RenderHealthHtml(const std::vector<HealthRun>& runs, std::string_view version,
                             const HealthExtras& extras = {});

}  // namespace trainscope::report
