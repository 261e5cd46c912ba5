// The self-contained HTML report (--html FILE): one file, no network, inline
// CSS and SVG, a few lines of script. Sections follow the method: summary
// and findings, distribution, timeline, details. Every string from a profile
// is escaped (profiles are untrusted input).
#pragma once

#include <optional>
#include <string>

#include "analysis/job/rank_analysis.h"

namespace trainscope::report {

struct HtmlReportOptions {
  std::optional<int32_t> focus_rank;  // rank shown in depth; default as in the text report
  std::string tool_version;
};

// The start of the <meta> every report carries in its <head>: how trainscope
// recognises a file it wrote before replacing it (cli/output_paths).
inline constexpr const char* kHtmlGeneratorMeta = "<meta name=\"generator\" content=\"trainscope";

std::string RenderHtml(const analysis::JobAnalysis& job, const HtmlReportOptions& options);

}  // namespace trainscope::report
