// The HTML report's interactive timeline (timeline_html.cc, timeline.js via timeline_script.cc).
#pragma once

#include "analysis/job/rank_analysis.h"
#include "report/html_writer.h"

namespace trainscope::report {

// The section: a canvas drawn by kTimelineScript from the payload of every
// rank's StepTimeline::track (timeline_payload.h).
void RenderInteractiveTimeline(HtmlWriter& out, const analysis::JobAnalysis& job);

// The section's script (no framework, no network), in a <script> right
// after the section, so it draws before the parser reaches the rest of the
// page. Exposes window.trainscopeTimeline (zoom, range, selectAt,
// selected, kernelCenter) and, with the URL fragment #selftest, runs them
// itself and writes the outcome to the data-timeline-selftest attribute of
// #ts-tl (tests/browser/report_browser_test.sh); data-timeline-first-paint-ms
// holds performance.now() at the end of the first draw.
extern const HtmlLiteral kTimelineScript;

}  // namespace trainscope::report
