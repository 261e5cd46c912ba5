// The HTML page of `trainscope compare`: verdict, the numbers side by side,
// overlaid duration densities, paired family bars, both steps' lanes on one
// time axis, the operator table (sortable) and the findings with the
// prediction check.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/charts.h"
#include "report/compare_gate_report.h"
#include "report/compare_ops_report.h"
#include "report/compare_report.h"
#include "report/html_report.h"
#include "report/html_style.h"
#include "report/svg.h"
#include "report/text_report.h"

namespace trainscope::report {
namespace {

using analysis::ComparedGroup;
using analysis::RunComparison;

void SideParagraph(HtmlWriter& out, const char* name, const analysis::SideInfo& s) {
  std::string inputs;
  for (const std::string& in : s.inputs) inputs += (inputs.empty() ? "" : ", ") + in;
  out.Format("<p><b>{}</b> {} &middot; {} rank(s) &middot; {} &middot; compared: rank {}, {}</p>\n",
             name, inputs, s.ranks, model::PlatformKey(s.platform), s.compared_rank,
             StepName(s.step));
}

void ValuesTable(HtmlWriter& out, const RunComparison& c) {
  out.Raw(
      "<table><tr><th class=\"l\">number</th><th>unit</th><th>BASE</th><th>NEW</th>"
      "<th>delta</th><th>delta %</th></tr>\n");
  for (const analysis::ComparedValue& v : c.values) {
    const std::string delta = v.delta() ? fmt::format("{:+.3f}", *v.delta()) : "n/a";
    const std::string pct = v.delta_pct() ? fmt::format("{:+.1f}%", *v.delta_pct()) : "n/a";
    out.Format(
        "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "</tr>\n",
        v.label, DisplayUnit(v.unit), FormatComparedValue(v.base, v.unit, false),
        FormatComparedValue(v.next, v.unit, false), delta, pct);
  }
  out.Raw("</table>\n");
}

// Per family, BASE's and NEW's time per step as two bars on one scale.
HtmlFragment PairedFamilyBarsSvg(const std::vector<ComparedGroup>& families) {
  const double row_h = 30, left = 200, right = 90, width = 1100;
  const double height = 30 + row_h * static_cast<double>(families.size());
  SvgCanvas svg(width, height, "Time per family, BASE and NEW");
  int64_t largest = 1;
  for (const ComparedGroup& f : families) largest = std::max({largest, f.base_ns, f.next_ns});
  const double plot_w = width - left - right;
  svg.Rect(left, 4, 10, 10, "#999999");
  svg.Text(left + 14, 13, "BASE");
  svg.Rect(left + 70, 4, 10, 10, FamilyColor("matmul"));
  svg.Text(left + 84, 13, "NEW (family colour)");
  for (size_t i = 0; i < families.size(); ++i) {
    const ComparedGroup& f = families[i];
    const double y = 22 + row_h * static_cast<double>(i);
    svg.Text(left - 6, y + 16, f.name, "end");
    const double wb = plot_w * static_cast<double>(f.base_ns) / static_cast<double>(largest);
    const double wn = plot_w * static_cast<double>(f.next_ns) / static_cast<double>(largest);
    svg.Rect(left, y + 2, std::max(wb, 0.5), 11, "#999999",
             fmt::format("{} BASE: {} kernels, {:.3f} ms", f.name, f.base_count,
                         static_cast<double>(f.base_ns) / 1e6));
    svg.Rect(left, y + 14, std::max(wn, 0.5), 11, FamilyColor(f.name),
             fmt::format("{} NEW: {} kernels, {:.3f} ms", f.name, f.next_count,
                         static_cast<double>(f.next_ns) / 1e6));
    svg.Text(left + std::max(wb, wn) + 6, y + 18,
             fmt::format("{:+.2f} ms", static_cast<double>(f.delta_ns()) / 1e6));
  }
  return std::move(svg).Finish();
}

void OperatorTable(HtmlWriter& out, const std::vector<ComparedGroup>& operators) {
  out.Raw(
      "<p class=\"muted\">Click a column to sort. Every operator type of either step; "
      "\"new\" and \"gone\" are types only one side runs.</p>\n<table class=\"sortable\">"
      "<tr><th class=\"l\">operator</th><th class=\"l\">family</th><th>BASE n</th>"
      "<th>NEW n</th><th>BASE ms</th><th>NEW ms</th><th>delta ms</th><th class=\"l\">state"
      "</th></tr>\n");
  for (const ComparedGroup& g : operators) {
    const char* state = g.base_count == 0 ? "new" : g.next_count == 0 ? "gone" : "";
    out.Format(
        "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td>"
        "<td>{:.3f}</td><td>{:.3f}</td><td>{:+.3f}</td><td class=\"l\">{}</td></tr>\n",
        g.name, g.family, g.base_count, g.next_count, static_cast<double>(g.base_ns) / 1e6,
        static_cast<double>(g.next_ns) / 1e6, static_cast<double>(g.delta_ns()) / 1e6, state);
  }
  out.Raw("</table>\n");
}

void FindingsTable(HtmlWriter& out, const RunComparison& c) {
  out.Raw(
      "<table><tr><th class=\"l\">finding</th><th class=\"l\">state</th><th>BASE chain "
      "instances</th><th>NEW chain instances</th><th>BASE gain %</th><th>NEW gain %</th></tr>\n");
  for (const analysis::ComparedFinding& f : c.findings) {
    const char* state = f.in_base && !f.in_next ? "gone" : !f.in_base && f.in_next ? "new" : "both";
    out.Format(
        "<tr><td class=\"l\">{} <span class=\"muted\">{}</span></td><td class=\"l\">{}</td>"
        "<td>{}</td><td>{}</td><td>{:.1f}</td><td>{:.1f}</td></tr>\n",
        f.id, f.title, state,
        f.counts_instances ? fmt::format("{}", f.base_instances) : std::string("n/a"),
        f.counts_instances ? fmt::format("{}", f.next_instances) : std::string("n/a"),
        f.base_gain_pct, f.next_gain_pct);
  }
  out.Raw("</table>\n");
  if (c.predictions.empty()) return;
  out.Raw(
      "<h3>Prediction check</h3><table><tr><th class=\"l\">finding gone in NEW</th>"
      "<th>predicted gain %</th><th>measured step-time gain %</th><th>error (pts)</th></tr>\n");
  for (const analysis::PredictionCheck& p : c.predictions) {
    out.Format("<tr><td class=\"l\">{}</td><td>{:.1f}</td><td>{}</td><td>{}</td></tr>\n", p.id,
               p.predicted_gain_pct,
               p.measured_gain_pct ? fmt::format("{:+.1f}", *p.measured_gain_pct) : "n/a",
               p.error_pct ? fmt::format("{:+.1f}", *p.error_pct) : "n/a");
  }
  if (c.combined_prediction) {
    const analysis::PredictionCheck& p = *c.combined_prediction;
    out.Format(
        "<tr><td class=\"l\"><b>all of them, combined</b> (the report's projection "
        "model)</td><td>{:.1f}</td><td>{}</td><td>{}</td></tr>\n",
        p.predicted_gain_pct,
        p.measured_gain_pct ? fmt::format("{:+.1f}", *p.measured_gain_pct) : "n/a",
        p.error_pct ? fmt::format("{:+.1f}", *p.error_pct) : "n/a");
  }
  out.Raw("</table>\n");
}

void Lanes(HtmlWriter& out, const RunComparison& c) {
  if (!c.base_timeline && !c.next_timeline) {
    out.Raw("<p class=\"muted\">No timeline picture of the compared steps.</p>\n");
    return;
  }
  int64_t axis = 0;
  for (const auto* t : {&c.base_timeline, &c.next_timeline}) {
    if (*t) axis = std::max(axis, (*t)->span_ns);
  }
  for (const auto& [name, t] : {std::pair{"BASE", &c.base_timeline}, {"NEW", &c.next_timeline}}) {
    out.Format("<h3>{}</h3>\n", name);
    if (*t) {
      out.Append(StepGanttSvg(**t, axis));
    } else {
      out.Raw("<p class=\"muted\">not drawn</p>\n");
    }
  }
}

// The only script: click-to-sort for tables of class "sortable".
constexpr HtmlLiteral kSortScript = R"js(<script>
document.querySelectorAll('table.sortable').forEach(function(t){
  t.querySelectorAll('th').forEach(function(th,i){th.style.cursor='pointer';th.onclick=function(){
    var rows=Array.from(t.rows).slice(1),d=th.dataset.d=th.dataset.d==='1'?'-1':'1';
    rows.sort(function(a,b){var x=a.cells[i].textContent,y=b.cells[i].textContent,
      p=parseFloat(x.replace(/,/g,'')),q=parseFloat(y.replace(/,/g,''));
      return (isNaN(p)||isNaN(q)?x.localeCompare(y):p-q)*d;});
    rows.forEach(function(r){t.appendChild(r);});};});});
document.documentElement.setAttribute('data-trainscope-ready','1');
</script>
)js";

}  // namespace

std::string RenderCompareHtml(const RunComparison& c, const std::string& tool_version) {
  HtmlWriter out;
  out.Reserve(1 << 18);
  out.Raw("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
  out.Raw(kHtmlGeneratorMeta);
  out.Format(" {}\">", tool_version);
  out.Raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
  out.Raw("<title>trainscope compare</title><style>");
  out.Raw(kReportStyle);
  out.Raw("</style></head><body>\n<header><h1>trainscope compare</h1>");
  out.Format("<p>BASE vs NEW &middot; trainscope {}</p></header>\n<main>\n", tool_version);
  out.Raw("<section id=\"summary\"><h2>Verdict</h2>");
  if (!c.cautions.empty()) {
    out.Raw("<ul class=\"cautions\">");
    for (const std::string& caution : c.cautions) out.Format("<li>{}</li>", caution);
    out.Raw("</ul>\n");
  }
  out.Format("<p class=\"finding\"><b>{}</b></p>\n", c.verdict);
  SideParagraph(out, "BASE", c.base);
  SideParagraph(out, "NEW", c.next);
  ValuesTable(out, c);
  out.Raw("</section>\n");
  out.Append(WorkloadGateHtml(c.workload, c.gate));
  out.Raw("<section id=\"distribution\"><h2>Kernel durations</h2>");
  out.Append(DensityChartSvg({{"BASE", &c.base_density}, {"NEW", &c.next_density}}));
  out.Raw("</section>\n<section id=\"families\"><h2>Families</h2>");
  if (!c.families.empty()) out.Append(PairedFamilyBarsSvg(c.families));
  out.Raw("</section>\n<section id=\"timeline\"><h2>Both steps on one time axis</h2>");
  Lanes(out, c);
  out.Raw("</section>\n<section id=\"operators\"><h2>Operators</h2>");
  OperatorTable(out, c.operators);
  out.Raw("</section>\n");
  RenderOpAlignmentHtml(out, c);
  out.Raw("<section id=\"findings\"><h2>Findings</h2>");
  FindingsTable(out, c);
  out.Raw("</section>\n</main>\n");
  out.Raw(kSortScript);
  out.Raw("</body></html>\n");
  return std::move(out).Finish().markup();
}

}  // namespace trainscope::report
