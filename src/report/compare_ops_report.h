// The op alignment of `trainscope compare` (analysis/compare/op_alignment.h)
// in the three reports: a terminal table, the JSON's `op_alignment` and the
// HTML page's section.
#pragma once

#include <string>

#include "analysis/compare/run_comparison.h"
#include "report/html_writer.h"
#include "report/json_writer.h"

namespace trainscope::report {

// The top |rows| ops and modules by time, then every porting finding.
void RenderOpAlignmentText(const analysis::RunComparison& c, size_t rows, std::string* out);
// Key "op_alignment": the object, or null; "op_alignment_missing": why null.
void WriteOpAlignmentJson(JsonWriter& w, const analysis::RunComparison& c);
void RenderOpAlignmentHtml(HtmlWriter& out, const analysis::RunComparison& c);

}  // namespace trainscope::report
