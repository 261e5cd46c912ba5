// The workload check and the regression gate of `trainscope compare` in
// each report: text, JSON (`workload` and `gate` of trainscope.compare/2)
// and HTML.
#pragma once

#include <optional>
#include <string>

#include "analysis/compare/regression_gate.h"
#include "analysis/compare/workload_check.h"
#include "report/html_writer.h"
#include "report/json_writer.h"

namespace trainscope::report {

void AppendWorkloadText(const analysis::WorkloadCheck& w, std::string* out);
void AppendGateText(const analysis::GateResult& g, std::string* out);
void WriteWorkloadJson(JsonWriter& w, const analysis::WorkloadCheck& check);
// `gate`: null when --gate was not given.
void WriteGateJson(JsonWriter& w, const std::optional<analysis::GateResult>& gate);
HtmlFragment WorkloadGateHtml(const analysis::WorkloadCheck& w,
                              const std::optional<analysis::GateResult>& gate);

}  // namespace trainscope::report
