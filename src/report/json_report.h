// The --json output. Schema documented in docs/json-schema.md; bump
// kJsonSchema's version on any incompatible change.
#pragma once

#include <string>

#include "analysis/job/rank_analysis.h"

namespace trainscope::report {

inline constexpr const char* kJsonSchema = "trainscope.analysis/1";

std::string RenderJson(const analysis::JobAnalysis& job, const std::string& tool_version);

}  // namespace trainscope::report
