// The --json output. Schema documented in docs/json-schema.md; bump
// kJsonSchema's version on any incompatible change.
#pragma once

#include <string>

#include "analysis/job/rank_analysis.h"
#include "report/json_writer.h"

namespace trainscope::report {

inline constexpr const char* kJsonSchema = "trainscope.analysis/3";

std::string RenderJson(const analysis::JobAnalysis& job, const std::string& tool_version);

// The same document, handed to |sink| in chunks as it is written (about
// 1 MiB each), so that its size never sits in memory: what `analyze --json`
// uses. The bytes equal RenderJson's.
void StreamJson(const analysis::JobAnalysis& job, const std::string& tool_version,
                const JsonWriter::Sink& sink);

}  // namespace trainscope::report
