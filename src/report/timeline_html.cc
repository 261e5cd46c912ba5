// The interactive timeline section of the HTML report: every rank of the
// shown step on one <canvas>, one lane per kind of device work, zoom with
// the wheel, drag to pan, hover and click for a kernel; motif instances and
// findings as overlays; a minimap of the whole step. The data is the
// payload of timeline_payload.h in one attribute (escaped like any text);
// the script is kTimelineScript, run by the page's one <script>.
#include "report/timeline_html.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/html_sections.h"
#include "report/text_report.h"
#include "report/timeline_payload.h"

namespace trainscope::report {

void RenderInteractiveTimeline(HtmlWriter& out, const analysis::JobAnalysis& job) {
  out.Raw("<section id=\"interactive\"><h2>Interactive timeline</h2>\n");
  TimelinePayloadStats stats;
  const std::string payload = TimelinePayload(job, kTimelinePageKernels, &stats);
  // Ranks whose device timeline is set aside are never drawn; say so.
  const std::string set_aside =
      stats.set_aside_ranks.empty()
          ? std::string()
          : fmt::format(
                " Not drawn: rank{} {}, whose device timeline of the step is set aside "
                "(it disagrees with step_trace_time.csv, or is impossible; the rank's "
                "warning says why).",
                stats.set_aside_ranks.size() == 1 ? "" : "s",
                fmt::join(stats.set_aside_ranks, ", "));
  if (payload.empty()) {
    out.Raw(
        "<p class=\"muted\">No kernels to draw: the timeline needs device activity in the shown "
        "step (a rank's warm-up step is drawn only with <code>--step</code>).");
    out.Text(set_aside);
    out.Raw("</p></section>\n");
    return;
  }
  out.Format(
      "<p>Every rank of the shown step, one row each, lanes Compute, Comm, Other (copies, "
      "memsets) and, where the trace links them, the kernels' host launches; {} kernels of {} "
      "rank{}, on one time axis from the earliest rank's step start. "
      "Wheel: zoom around the pointer; drag: pan; click: select a kernel; the minimap below moves "
      "the window. Rank labels redden with a late step start; the grey hatched span is the compute "
      "lane's idle at step start.",
      FormatCount(stats.kernels), stats.ranks, stats.ranks == 1 ? "" : "s");
  if (stats.dropped > 0) {
    out.Format(" {} shorter kernels are left out to keep the page small.",
               FormatCount(stats.dropped));
  }
  out.Text(set_aside);
  out.Raw("</p>\n");
  out.Format(
      "<div class=\"tl-controls\"><label><input type=\"checkbox\" id=\"tl-motifs\"> motif "
      "instances</label> <label><input type=\"checkbox\" id=\"tl-findings\" checked> findings "
      "</label> <button type=\"button\" id=\"tl-reset\">whole step</button> <span id=\"tl-range\" "
      "class=\"muted\"></span></div>\n<div id=\"ts-tl\" data-timeline=\"{}\"></div>\n",
      payload);
  out.Raw("</section>\n");
}

}  // namespace trainscope::report
