// The cross-rank part of the HTML report's "Ranks" section: the scatter of
// step-start offsets against step times, the two straggler methods side by
// side, the per-rank table and slow links.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/rank_ranges.h"
#include "report/cluster_charts.h"
#include "report/html_sections.h"
#include "report/sections.h"
#include "report/svg.h"
#include "report/text_report.h"

namespace trainscope::report {
namespace {

std::string RankList(const std::vector<int32_t>& ranks) { return CompactRankList(ranks); }

// The hosts' clock offsets, as the text's "clocks:" line says them.
void RenderClockAlignmentHtml(HtmlWriter& out, const analysis::ClockAlignment& clock) {
  if (!clock.estimated) {
    if (!clock.note.empty()) out.Format("<p>Clocks not aligned: {}.</p>\n", clock.note);
    return;
  }
  std::string applied;
  for (const analysis::HostClock& host : clock.hosts) {
    if (host.applied)
      applied += fmt::format("{}{} {:+.3f} ms", applied.empty() ? "" : ", ", host.host,
                             static_cast<double>(*host.offset_ns) / 1e6);
  }
  auto spread = [](const std::optional<int64_t>& ns) {
    return ns ? FormatDurationNs(static_cast<double>(*ns)) : std::string("n/a");
  };
  out.Format(
      "<p>Clocks: {} hosts against {}; offsets applied before the methods below: {}; collective "
      "ends spread {} (was {}).{}</p>\n",
      clock.hosts.size(), clock.reference_host, applied.empty() ? "none" : applied,
      spread(clock.end_spread_after_ns), spread(clock.end_spread_before_ns),
      clock.note.empty() ? "" : " " + clock.note + ".");
}

// ", data loader 3 ms, launch 1 ms": the host's charges in a segment.
std::string HostParts(const analysis::PathSegment& s) {
  const std::string text = HostIdleText(s.host);
  return text.empty() ? text : ", " + text;
}

// The critical path as one bar over the step's device span: each segment
// where it lies, coloured by what it charges, its rank and time in its
// tooltip.
void RenderCriticalPathHtml(HtmlWriter& out, const analysis::CriticalPath& path) {
  if (!path.computed) {
    if (!path.note.empty()) out.Format("<p>Critical path: {}.</p>\n", path.note);
    return;
  }
  const auto span = static_cast<double>(path.end_ns - path.start_ns);
  auto pct = [span](int64_t ns) { return span > 0 ? 100.0 * static_cast<double>(ns) / span : 0; };
  out.Format("<p>Critical path over the device span ({}): {}; by rank: {}.</p>\n",
             FormatDurationNs(span), CriticalPathShares(path), [&path, &pct] {
               std::string ranks;
               for (size_t i = 0; i < path.by_rank.size() && i < 6; ++i)
                 ranks += fmt::format("{}{} {:.1f}%", i ? ", " : "", path.by_rank[i].first,
                                      pct(path.by_rank[i].second));
               return ranks;
             }());
  out.Raw(
      "<svg class=\"critical-path\" viewBox=\"0 0 1000 24\" width=\"100%\" height=\"24\" "
      "preserveAspectRatio=\"none\" role=\"img\" aria-label=\"critical path\">\n");
  for (const analysis::PathSegment& s : path.segments) {
    const double x = span > 0 ? 1000.0 * static_cast<double>(s.start_ns - path.start_ns) / span : 0;
    const double w = span > 0 ? 1000.0 * static_cast<double>(s.duration_ns()) / span : 0;
    if (w < 0.05) continue;  // under a twentieth of a pixel at 1000 px
    const char* fill = s.kind == analysis::PathSegmentKind::kTransfer    ? "#e45756"
                       : s.kind == analysis::PathSegmentKind::kLateStart ? "#bab0ac"
                                                                         : "#4c78a8";
    const std::string tip =
        s.kind == analysis::PathSegmentKind::kWork
            ? fmt::format("rank {} work {} (compute {}{})", s.rank,
                          FormatDurationNs(static_cast<double>(s.duration_ns())),
                          FormatDurationNs(static_cast<double>(s.compute_ns)), HostParts(s))
        : s.kind == analysis::PathSegmentKind::kTransfer
            ? fmt::format("{} over {} ranks, rank {} last to arrive: {}", s.collective,
                          s.participants, s.rank,
                          FormatDurationNs(static_cast<double>(s.duration_ns())))
            : fmt::format("rank {} started {} after the first rank{}", s.rank,
                          FormatDurationNs(static_cast<double>(s.duration_ns())), HostParts(s));
    out.Format(
        "<rect x=\"{:.2f}\" y=\"2\" width=\"{:.2f}\" height=\"20\" fill=\"{}\"><title>{}</title>"
        "</rect>\n",
        x, w, fill, tip);
  }
  out.Raw(
      "</svg>\n<p class=\"muted\">Blue: a rank's work (its compute and the idle between its "
      "kernels), red: a blocking collective from its last arrival to its end, grey: a late start; "
      "hover a segment for its rank.</p>\n");
  if (const std::string waits = PathWaitsText(path, 6); !waits.empty()) {
    out.Raw(
        "<p>Waiting for the path (time in blocking collectives before their last participant "
        "arrived): ");
    out.Text(waits);
    out.Raw(".</p>\n");
  }
}

}  // namespace

void RenderClusterHtml(HtmlWriter& out, const analysis::JobAnalysis& job) {
  const analysis::ClusterAnalysis& c = job.cluster;
  if (!c.present) return;
  out.Format("<h3>Cross-rank, {}</h3>\n", StepName(c.step));
  // The skew and the wait are times on the device timelines: unknown when
  // every rank's timeline of the step is set aside (as in the text).
  const bool timelines = c.ranks_with_timeline > 0;
  auto on_timeline = [timelines](double ns) {
    return timelines ? FormatDurationNs(ns) : std::string("n/a");
  };
  out.Format(
      "<p>Step time spread {:.1f}% ((max − min) / mean; above 5% means a slow rank), first-kernel "
      "skew {}, "
      "step-start wait mean {} / max {}.</p>\n",
      c.step_time_spread_pct, on_timeline(static_cast<double>(c.first_kernel_skew_ns)),
      on_timeline(c.mean_step_start_wait_ns),
      on_timeline(static_cast<double>(c.max_step_start_wait_ns)));
  out.Append(RankScatterSvg(c));
  RenderClockAlignmentHtml(out, c.clock);
  RenderCriticalPathHtml(out, c.critical_path);
  out.Raw(
      "<table><tr><th class=\"l\">straggler method</th><th class=\"l\">rule</th><th>instances</th>"
      "<th class=\"l\">ranks</th></tr>\n");
  for (const auto* method : {&c.by_shortest_comm, &c.by_last_arrival, &c.by_late_start,
                             &c.by_least_comm, &c.by_compute}) {
    out.Format(
        "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td "
        "class=\"l\">{}</td></tr>\n",
        method->id, method->rule, method->instances_tested, RankList(method->ranks));
  }
  out.Raw("</table>\n");
  out.Raw(
      "<table><tr><th>rank</th><th>step time</th><th>start offset</th><th>step-start wait</th>"
      "<th>exposed comm</th><th>pseudo-overlap</th><th>collectives</th><th>last arrivals</th>"
      "<th>mean lateness</th></tr>\n");
  // A rank no instance compared (its timeline set aside, no collective
  // shared): its arrivals and lateness are unknown.
  auto last = [](const analysis::RankClusterStats& r) {
    return r.instances_compared > 0 ? fmt::format("{}", r.last_arrivals) : std::string("n/a");
  };
  auto lateness = [](const analysis::RankClusterStats& r) {
    return r.instances_compared > 0 ? FormatDurationNs(r.mean_lateness_ns) : std::string("n/a");
  };
  for (const auto& r : c.per_rank) {
    if (!r.has_device_step) {
      out.Format(
          "<tr><td>{}</td><td>n/a</td><td>n/a</td><td>n/a</td><td>n/a</td><td>n/a</td><td>n/a</td>"
          "<td>{}</td><td>{}</td></tr>\n",
          r.rank, last(r), lateness(r));
      continue;
    }
    if (r.timeline_set_aside) {  // budget numbers; times on the timeline unknown
      out.Format(
          "<tr><td>{}</td><td>{} <span class=\"muted\">(step_trace_time.csv: timeline set "
          "aside)</span></td><td>n/a</td><td>n/a</td><td>{}</td><td>n/a</td><td>{}</td><td>{}</td>"
          "<td>{}</td></tr>\n",
          r.rank, FormatDurationNs(r.step_time_ns), FormatDurationNs(r.exposed_comm_ns),
          r.collectives, last(r), lateness(r));
      continue;
    }
    out.Format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</"
        "td>"
        "<td>{}</td></tr>\n",
        r.rank, FormatDurationNs(r.step_time_ns), FormatDurationNs(r.step_start_offset_ns),
        FormatDurationNs(r.step_start_wait_ns), FormatDurationNs(r.exposed_comm_ns),
        FormatDurationNs(r.pseudo_overlap_ns), r.collectives, last(r), lateness(r));
  }
  out.Raw("</table>\n");
  if (!c.slow_links.empty()) {
    out.Raw(
        "<h3>Slow links</h3><table><tr><th>src</th><th>dst</th><th class=\"l\">transport</th>"
        "<th>bandwidth GB/s</th><th>transport mean</th><th>ratio</th></tr>\n");
    for (const auto& link : c.slow_links) {
      out.Format(
          "<tr><td>{}</td><td>{}</td><td "
          "class=\"l\">{}</td><td>{:.2f}</td><td>{:.2f}</td><td>{:.2f}</td></tr>\n",
          link.src, link.dst, link.transport, link.bandwidth_gbps, link.transport_mean_gbps,
          link.ratio);
    }
    out.Raw("</table>\n");
  }
  if (!c.link_matrix.empty()) {
    out.Format(
        "<h3>Link bandwidth</h3><p>communication_matrix.json of every rank, {} links between "
        "ranks: rows send, columns receive; hover a cell for its data, time and GB/s.</p>\n",
        c.link_matrix.size());
    out.Append(LinkMatrixSvg(c));
  }
  for (const auto& note : c.notes) out.Format("<p class=\"muted\">{}</p>\n", note);
}

}  // namespace trainscope::report
