// The pictures of the HTML report, drawn from analysis results only.
#pragma once

#include <string>
#include <vector>

#include "analysis/step/kernel_distribution.h"
#include "analysis/timeline/step_timeline.h"
#include "report/html_writer.h"

namespace trainscope::report {

// A stable, colour-blind-safe colour per kernel family.
std::string FamilyColor(const std::string& family);

struct DensitySeries {
  std::string label;  // e.g. "rank 0"
  const analysis::DurationDensity* density;
};

// The series the density chart's legend names; more are drawn unnamed.
inline constexpr size_t kDensityLegendRows = 16;

// Log-log kernel-duration density, several runs or ranks overlaid.
HtmlFragment DensityChartSvg(const std::vector<DensitySeries>& series);

// Two bar charts side by side: share of kernel count and of kernel time.
HtmlFragment FamilyBarsSvg(const std::vector<analysis::FamilyStat>& families);

// Gantt of one step: lanes Compute, Comm, Other, Free, coloured by family;
// kernels narrower than a pixel are aggregated per pixel column (the
// family with the most time there wins), so the SVG stays small for
// steps of 10^5 kernels. Zoom windows are outlined.
// |axis_span_ns| > the step's span: the time axis runs to it instead, so
// two steps drawn with the same value share one scale (compare).
HtmlFragment StepGanttSvg(const analysis::StepTimeline& timeline, int64_t axis_span_ns = 0);

// One zoom window drawn kernel by kernel (up to its cap).
HtmlFragment ZoomGanttSvg(const analysis::StepTimeline& timeline, const analysis::ZoomWindow& zoom);

}  // namespace trainscope::report
