// `trainscope triage` output: the text report, the JSON document (schema
// trainscope.triage/1, docs/json-schema.md) and the HTML page with a
// per-rank timeline of the last events and first errors (docs/triage.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/triage/triage.h"
#include "model/failure_log.h"

namespace trainscope::report {

inline constexpr std::string_view kTriageJsonSchema = "trainscope.triage/1";

// What was read besides the analysis: the files not read, with the reason.
struct TriageInputsSummary {
  int64_t files_seen = 0;
  std::vector<model::NotRead> not_read;
};

std::string RenderTriageText(const analysis::TriageReport& report,
                             const TriageInputsSummary& inputs);
std::string RenderTriageJson(const analysis::TriageReport& report,
                             const TriageInputsSummary& inputs, std::string_view version);
std::string RenderTriageHtml(const analysis::TriageReport& report,
                             const TriageInputsSummary& inputs, std::string_view version);

}  // namespace trainscope::report
