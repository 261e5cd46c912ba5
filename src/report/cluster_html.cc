// The cross-rank part of the HTML report's "Ranks" section: the scatter of
// step-start offsets against step times, the two straggler methods side by
// side, the per-rank table and slow links.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/cluster_charts.h"
#include "report/html_sections.h"
#include "report/svg.h"
#include "report/text_report.h"

namespace trainscope::report {
namespace {

std::string E(std::string_view text) { return HtmlEscape(text); }
std::string Us(double us) { return E(FormatDurationUs(us)); }

std::string RankList(const std::vector<int32_t>& ranks) {
  return ranks.empty() ? std::string("none") : fmt::format("{}", fmt::join(ranks, ", "));
}

}  // namespace

void RenderClusterHtml(std::string& out, const analysis::JobAnalysis& job) {
  const analysis::ClusterAnalysis& c = job.cluster;
  if (!c.present) return;
  out += fmt::format("<h3>Cross-rank, step {}</h3>\n", c.step);
  out += fmt::format(
      "<p>Step time spread {:.1f}% ((max − min) / mean; above 5% means a slow rank), first-kernel "
      "skew {}, "
      "step-start wait mean {} / max {}.</p>\n",
      c.step_time_spread_pct, Us(c.first_kernel_skew_us), Us(c.mean_step_start_wait_us),
      Us(c.max_step_start_wait_us));
  out += RankScatterSvg(c);
  out +=
      "<table><tr><th class=\"l\">straggler method</th><th class=\"l\">rule</th><th>instances</th>"
      "<th class=\"l\">ranks</th></tr>\n";
  for (const auto* method : {&c.by_shortest_comm, &c.by_last_arrival}) {
    out += fmt::format(
        "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td "
        "class=\"l\">{}</td></tr>\n",
        E(method->id), E(method->rule), method->instances_tested, E(RankList(method->ranks)));
  }
  out += "</table>\n";
  out +=
      "<table><tr><th>rank</th><th>step time</th><th>start offset</th><th>step-start wait</th>"
      "<th>exposed comm</th><th>pseudo-overlap</th><th>collectives</th><th>last arrivals</th>"
      "<th>mean lateness</th></tr>\n";
  for (const auto& r : c.per_rank) {
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</"
        "td>"
        "<td>{}</td></tr>\n",
        r.rank, Us(r.step_time_us), Us(r.step_start_offset_us), Us(r.step_start_wait_us),
        Us(r.exposed_comm_us), Us(r.pseudo_overlap_us), r.collectives, r.last_arrivals,
        Us(r.mean_lateness_us));
  }
  out += "</table>\n";
  if (!c.slow_links.empty()) {
    out +=
        "<h3>Slow links</h3><table><tr><th>src</th><th>dst</th><th class=\"l\">transport</th>"
        "<th>bandwidth GB/s</th><th>transport mean</th><th>ratio</th></tr>\n";
    for (const auto& link : c.slow_links) {
      out += fmt::format(
          "<tr><td>{}</td><td>{}</td><td "
          "class=\"l\">{}</td><td>{:.2f}</td><td>{:.2f}</td><td>{:.2f}</td></tr>\n",
          link.src, link.dst, E(link.transport), link.bandwidth_gbps, link.transport_mean_gbps,
          link.ratio);
    }
    out += "</table>\n";
  }
  for (const auto& note : c.notes) out += fmt::format("<p class=\"muted\">{}</p>\n", E(note));
}

}  // namespace trainscope::report
