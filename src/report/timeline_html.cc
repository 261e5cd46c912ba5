// The interactive timeline section of the HTML report: every rank of the
// shown step on one <canvas>, one labelled lane per kind of device work, a
// step selector over every step the payload carries, a family legend, a
// search that highlights kernels by name, zoom and pan by wheel, drag or
// keyboard, hover and click for a kernel; motif instances and named
// findings as overlays; a minimap of the whole step. The data is the
// payload of timeline_payload.h in one attribute (escaped like any text);
// the script is kTimelineScript, in a <script> right after the section.
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
      "<p>Every rank of the step, one row each, its lanes labelled: Compute, Comm, Other (copies, "
      "memsets) and, where the trace links them, the kernels' host launches; {} kernels of {} "
      "rank{} in the shown step, on one time axis from the earliest rank's step start. "
      "Wheel or <kbd>+</kbd>/<kbd>-</kbd> (<kbd>w</kbd>/<kbd>s</kbd>): zoom; drag, "
      "<kbd>a</kbd>/<kbd>d</kbd> or the arrow keys: pan; <kbd>0</kbd>: the whole step (keys once "
      "the timeline has focus: click it); click: select a kernel; the minimap below moves the "
      "window. Search highlights the kernels whose name holds the text, on every rank. Rank "
      "labels redden with a late step start; the grey hatched span is the compute lane's idle at "
      "step start; findings are outlined in red with their id.",
      FormatCount(stats.kernels), stats.ranks, stats.ranks == 1 ? "" : "s");
  if (stats.dropped > 0) {
    out.Format(" {} shorter kernels are left out to keep the page small.",
               FormatCount(stats.dropped));
  }
  out.Text(set_aside);
  out.Raw("</p>\n");
  if (stats.steps.size() > 1 || !stats.steps_left_out.empty() ||
      !stats.steps_without_track.empty()) {
    out.Format("<p class=\"muted\">Steps in the selector: {}",
               fmt::format("{}", fmt::join(stats.steps, ", ")));
    if (!stats.steps_left_out.empty()) {
      out.Format(
          "; not carried, to keep the page within {} kernels (the shown step and the steps "
          "nearest it come first): step{} {} (<code>--step N</code> shows one)",
          FormatCount(static_cast<int64_t>(kTimelinePageKernels)),
          stats.steps_left_out.size() == 1 ? "" : "s",
          fmt::format("{}", fmt::join(stats.steps_left_out, ", ")));
    }
    if (!stats.steps_without_track.empty()) {
      out.Format(
          "; without kept kernels: step{} {} (a rank's first captured step is a warm-up whose "
          "kernels are kept only when <code>--step</code> names it)",
          stats.steps_without_track.size() == 1 ? "" : "s",
          fmt::format("{}", fmt::join(stats.steps_without_track, ", ")));
    }
    out.Raw(".</p>\n");
  }
  out.Format(
      "<div class=\"tl-controls\"><label>step <select id=\"tl-step\"></select></label> "
      "<label>search <input type=\"search\" id=\"tl-search\" placeholder=\"kernel name\" "
      "size=\"18\"></label> <span id=\"tl-count\" class=\"muted\"></span> "
      "<label><input type=\"checkbox\" id=\"tl-motifs\"> motif instances</label> "
      "<label><input type=\"checkbox\" id=\"tl-findings\" checked> findings</label> "
      "<label><input type=\"checkbox\" id=\"tl-path\" checked> critical path</label> "
      "<button type=\"button\" id=\"tl-reset\">whole step</button> <span id=\"tl-range\" "
      "class=\"muted\"></span></div>\n<div id=\"tl-legend\" class=\"muted\"></div>\n"
      "<div id=\"ts-tl\" tabindex=\"0\" aria-label=\"interactive timeline\" "
      "data-timeline=\"{}\"></div>\n",
      payload);
  out.Raw("</section>\n");
  // Its script right after it: the timeline draws while the parser is still
  // reading the rest of the page (on 1,024 ranks the ranks and input-health
  // tables are thousands of rows after it).
  out.Raw("<script>");
  out.Raw(kTimelineScript);
  out.Raw("</script>\n");
}

}  // namespace trainscope::report
