// `trainscope health` output: the text summary and the JSON document
// (schema trainscope.health/1, docs/json-schema.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

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

// |scaling|: with --scaling, the table across the runs (else null).
std::string RenderHealthText(const std::vector<HealthRun>& runs,
                             const analysis::ScalingTable* scaling = nullptr);
std::string RenderHealthJson(const std::vector<HealthRun>& runs, std::string_view version,
                             const analysis::ScalingTable* scaling = nullptr);
// A self-contained page: per run the curves with the findings marked; the
// scaling table and chart first when given.
std::string RenderHealthHtml(const std::vector<HealthRun>& runs, std::string_view version,
                             const analysis::ScalingTable* scaling = nullptr);

}  // namespace trainscope::report
