#include "report/html_sections.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "report/charts.h"
#include "report/svg.h"
#include "report/text_report.h"

namespace trainscope::report {
namespace {

std::string E(std::string_view text) { return HtmlEscape(text); }
std::string Us(double us) { return E(FormatDurationUs(us)); }
std::string Pct(double fraction) { return E(FormatPercent(fraction)); }

std::string StepLabel(int32_t step) {
  return step == model::kNoStep ? "all" : std::to_string(step);
}

void Kpi(std::string& out, const std::string& label, const std::string& value_html) {
  out += fmt::format("<div><span class=\"muted\">{}</span><b>{}</b></div>", E(label), value_html);
}

}  // namespace

void RenderSummarySection(std::string& out, const analysis::JobAnalysis& job,
                          const analysis::RankAnalysis* focus) {
  out += "<section id=\"summary\"><h2>Summary and findings</h2>\n";
  if (focus != nullptr && focus->selected() != nullptr) {
    const auto& step = *focus->selected();
    const auto& k = step.kernels;
    out += fmt::format("<p>Rank {} in depth, step {}: <span class=\"muted\">{}</span></p>\n",
                       focus->header.rank, E(StepLabel(focus->selected_step)),
                       E(focus->selected_step_reason));
    out += "<div class=\"kpi\">";
    Kpi(out, "kernels in the step", E(FormatCount(k.count)));
    Kpi(out, "step span", Us(k.span_us));
    Kpi(out, "one kernel issued every", Us(k.mean_issue_interval_us));
    Kpi(out, "p50 / p90 duration", Us(k.p50_us) + " / " + Us(k.p90_us));
    Kpi(out, "kernels ≤ 50 µs", Pct(k.share_le_50us));
    if (step.breakdown) {
      const auto& b = step.breakdown->budget;
      double total = b.total_ns ? static_cast<double>(b.total_ns) : 1.0;
      Kpi(out, "computation", Pct(b.computation_ns / total));
      Kpi(out, "exposed communication", Pct(b.exposed_communication_ns / total));
      Kpi(out, "device idle", Pct(b.idle_ns / total));
    }
    out += "</div>\n";
  }
  out += "<h3>Root-cause portrait (ranked by estimated gain)</h3>\n";
  if (job.findings.empty()) {
    out += "<p class=\"muted\">No finding above the thresholds of the method.</p>\n";
  }
  for (const auto& finding : job.findings) {
    out += "<div class=\"finding\">";
    out += fmt::format("<span class=\"gain\">{:.1f}%</span> <b>{}</b> <code>{}</code>",
                       finding.estimated_gain_pct, E(finding.title), E(finding.id));
    if (!finding.ranks.empty()) {
      out += fmt::format(" <span class=\"muted\">ranks {}</span>",
                         E(fmt::format("{}", fmt::join(finding.ranks, ", "))));
    }
    out += fmt::format("<br><b>Evidence:</b> {}", E(finding.evidence));
    if (!finding.root_cause.empty())
      out += fmt::format("<br><b>Cause:</b> {}", E(finding.root_cause));
    out += fmt::format("<br><b>Remedy:</b> {}", E(finding.remedy));
    if (!finding.gain_model.empty())
      out += fmt::format("<br><span class=\"muted\">Gain model: {}</span>", E(finding.gain_model));
    out += "</div>\n";
  }
  out += "</section>\n";
}

void RenderDistributionSection(std::string& out, const analysis::JobAnalysis& job,
                               const analysis::RankAnalysis* focus) {
  out += "<section id=\"distribution\"><h2>Kernel distribution</h2>\n";
  std::vector<DensitySeries> series;
  for (const auto& rank : job.ranks) {
    const auto* step = rank.selected();
    if (step == nullptr || step->kernels.count == 0) continue;
    series.push_back(
        {fmt::format("rank {} step {}", rank.header.rank, StepLabel(rank.selected_step)),
         &step->density});
  }
  if (!series.empty()) {
    out += "<h3>Log-log density of kernel durations</h3>\n";
    out +=
        "<p class=\"muted\">Mass at the left is many tiny kernels (launch-bound, unfused code); a "
        "fused run "
        "moves mass into a band at 10²–10⁴ µs.</p>\n";
    out += DensityChartSvg(series);
  }
  if (focus != nullptr && focus->selected() != nullptr) {
    const auto& step = *focus->selected();
    out += fmt::format("<h3>Kernel families, rank {} step {}</h3>\n", focus->header.rank,
                       E(StepLabel(step.step)));
    out += FamilyBarsSvg(step.families);
    out +=
        "<table><tr><th "
        "class=\"l\">family</th><th>kernels</th><th>share</th><th>time</th><th>share</th></tr>\n";
    std::vector<analysis::FamilyStat> families = step.families;
    std::stable_sort(families.begin(), families.end(),
                     [](const auto& a, const auto& b) { return a.total_us > b.total_us; });
    for (const auto& family : families) {
      if (family.count == 0) continue;
      out += fmt::format(
          "<tr><td class=\"l\"><span class=\"swatch\" "
          "style=\"background:{}\"></span>{}</td><td>{}</td><td>{}</td>"
          "<td>{}</td><td>{}</td></tr>\n",
          E(FamilyColor(family.name)), E(family.name), E(FormatCount(family.count)),
          Pct(family.share_count), Us(family.total_us), Pct(family.share_time));
    }
    out += "</table>\n<h3>Top operators by total time</h3>\n";
    out +=
        "<table><tr><th class=\"l\">operator type</th><th "
        "class=\"l\">family</th><th>count</th><th>total</th>"
        "<th>mean</th><th>max</th><th>share of kernel time</th></tr>\n";
    for (const auto& op : step.top_operators) {
      out += fmt::format(
          "<tr><td class=\"l\">{}</td><td "
          "class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
          E(op.op_type), E(op.family), E(FormatCount(op.count)), Us(op.total_us), Us(op.mean_us),
          Us(op.max_us), Pct(op.share_time));
    }
    out += "</table>\n";
  }
  out += "</section>\n";
}

void RenderTimelineSection(std::string& out, const analysis::RankAnalysis* focus) {
  out += "<section id=\"timeline\"><h2>Timeline panorama</h2>\n";
  if (focus == nullptr || focus->timeline.kernel_count == 0) {
    out += "<p class=\"muted\">No device activity to draw.</p></section>\n";
    return;
  }
  const auto& t = focus->timeline;
  out += fmt::format(
      "<p>Rank {}, step {}, span {}. Lanes: Compute, Comm (collectives), Other (copies, AI CPU), "
      "Free (device idle). Dashed boxes are the zoom windows below.</p>\n",
      focus->header.rank, E(StepLabel(t.step)), Us(t.span_us));
  out += StepGanttSvg(t);
  out += "<table><tr><th class=\"l\">lane</th><th>time</th><th>share of span</th></tr>\n";
  double span = t.span_us > 0 ? t.span_us : 1;
  for (auto [name, value] : {std::pair<const char*, double>{"Compute", t.compute_us},
                             {"Comm", t.comm_us},
                             {"Comm not overlapped", t.comm_not_overlapped_us},
                             {"Other", t.other_us},
                             {"Free", t.free_us}}) {
    out += fmt::format("<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td></tr>\n", name, Us(value),
                       Pct(value / span));
  }
  out += "</table>\n";
  if (t.step_start_idle_us > 0) {
    out += fmt::format(
        "<p><b>Step start:</b> the compute lane is idle for {} after the step starts{}.</p>\n",
        Us(t.step_start_idle_us),
        t.step_start_waits_for.empty()
            ? std::string()
            : fmt::format(", while <code>{}</code> runs for {} (a barrier waiting for the "
                          "slowest rank when it is a step-start collective)",
                          E(t.step_start_waits_for), Us(t.step_start_wait_collective_us)));
  }
  if (!t.zoom_centre.empty()) {
    out +=
        fmt::format("<p class=\"muted\">Zoom windows centred on the {}.</p>\n", E(t.zoom_centre));
  }
  if (!t.longest_gaps.empty()) {
    out +=
        "<h3>Longest free gaps</h3><table><tr><th>at</th><th>duration</th><th class=\"l\">preceded "
        "by</th>"
        "<th class=\"l\">followed by</th></tr>\n";
    for (const auto& gap : t.longest_gaps) {
      out += fmt::format(
          "<tr><td>+{}</td><td>{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td></tr>\n",
          Us(gap.start_us), Us(gap.duration_us), E(gap.before), E(gap.after));
    }
    out += "</table>\n";
  }
  for (size_t i = 0; i < t.zooms.size(); ++i) {
    const auto& zoom = t.zooms[i];
    out += fmt::format("<h3 class=\"zoom\">Zoom {}: {} window from +{} ({} kernels)</h3>\n", i + 1,
                       Us(zoom.width_us), Us(zoom.start_us), zoom.kernel_count);
    out += ZoomGanttSvg(t, zoom);
    out +=
        "<details><summary>kernels in this "
        "window</summary><table><tr><th>start</th><th>duration</th>"
        "<th class=\"l\">type</th><th class=\"l\">family</th><th class=\"l\">name</th></tr>\n";
    size_t shown = 0;
    for (const auto& kernel : zoom.kernels) {
      if (++shown > 120) break;
      out += fmt::format(
          "<tr><td>+{}</td><td>{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td "
          "class=\"l\">{}</td></tr>\n",
          Us(kernel.start_us), Us(kernel.duration_us), E(t.Str(kernel.op_type)),
          E(t.Str(kernel.family)), E(t.Str(kernel.name)));
    }
    out += "</table>";
    if (zoom.kernel_count > static_cast<int64_t>(std::min<size_t>(zoom.kernels.size(), 120))) {
      out += fmt::format("<p class=\"muted\">first {} of {} kernels shown</p>",
                         std::min<size_t>(zoom.kernels.size(), 120), zoom.kernel_count);
    }
    out += "</details>\n";
  }
  out += "</section>\n";
}

void RenderRanksSection(std::string& out, const analysis::JobAnalysis& job) {
  out += "<section id=\"ranks\"><h2>Ranks</h2>\n";
  out +=
      "<table><tr><th>rank</th><th>step</th><th>kernels</th><th>span</th><th>p50</th><th>p90</th>"
      "<th>≤ 50 µs</th><th>computation</th><th>exposed comm</th><th>idle</th><th "
      "class=\"l\">capture</th></tr>\n";
  for (const auto& rank : job.ranks) {
    const auto* step = rank.selected();
    std::string capture = fmt::format("{} {} {}", rank.header.torch_npu_version,
                                      rank.header.cann_version, rank.header.profiler_level);
    if (step == nullptr) continue;
    const auto& k = step->kernels;
    std::string comp = "-", comm = "-", idle = "-";
    if (step->breakdown && step->breakdown->budget.total_ns > 0) {
      const auto& b = step->breakdown->budget;
      double total = static_cast<double>(b.total_ns);
      comp = Pct(b.computation_ns / total);
      comm = Pct(b.exposed_communication_ns / total);
      idle = Pct(b.idle_ns / total);
    }
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</"
        "td>"
        "<td>{}</td><td>{}</td><td class=\"l\">{}</td></tr>\n",
        rank.header.rank, E(StepLabel(rank.selected_step)), E(FormatCount(k.count)), Us(k.span_us),
        Us(k.p50_us), Us(k.p90_us), Pct(k.share_le_50us), comp, comm, idle, E(capture));
  }
  out += "</table>\n";
  RenderClusterHtml(out, job);
  out += "</section>\n";
}

void RenderDetailsSection(std::string& out, const analysis::JobAnalysis& job) {
  out += "<section id=\"details\"><h2>Details: input health</h2>\n";
  for (const auto& issue : job.failed_inputs) {
    out += fmt::format(
        "<p class=\"failed-input\"><b>not loaded</b>: {}: <span class=\"muted\">{}</span></p>\n",
        E(issue.path), E(issue.reason));
  }
  if (!job.skipped_inputs.empty()) {
    out += fmt::format(
        "<details class=\"skipped-inputs\"{}><summary>{} file{} skipped</summary><ul>\n",
        job.skipped_inputs.size() <= 10 ? " open" : "", job.skipped_inputs.size(),
        job.skipped_inputs.size() == 1 ? "" : "s");
    for (const auto& issue : job.skipped_inputs) {
      out += fmt::format("<li>{}: <span class=\"muted\">{}</span></li>\n", E(issue.path),
                         E(issue.reason));
    }
    out += "</ul></details>\n";
  }
  out +=
      "<table><tr><th>rank</th><th class=\"l\">file</th><th>rows "
      "read</th><th>used</th><th>skipped</th>"
      "<th class=\"l\">skip reasons</th></tr>\n";
  for (const auto& rank : job.ranks) {
    for (const auto& file : rank.header.files) {
      std::string reasons;
      for (const auto& [reason, count] : file.skipped_by_reason) {
        reasons += fmt::format("{}{} × {}", reasons.empty() ? "" : "; ", count, reason);
      }
      out += fmt::format(
          "<tr><td>{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td "
          "class=\"l\">{}</td></tr>\n",
          rank.header.rank, E(file.file), file.rows_read, file.rows_used, file.rows_skipped,
          E(reasons));
    }
  }
  out += "</table>\n";
  for (const auto& rank : job.ranks) {
    for (const auto& missing : rank.header.missing_files) {
      out += fmt::format("<p class=\"muted\">rank {}: not present: {}</p>\n", rank.header.rank,
                         E(missing));
    }
    for (const auto& warning : rank.header.warnings) {
      out += fmt::format("<p>rank {}: {}</p>\n", rank.header.rank, E(warning));
    }
  }
  out += "</section>\n";
}

}  // namespace trainscope::report
