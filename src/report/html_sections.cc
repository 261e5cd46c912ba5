#include "report/html_sections.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

#include "core/rank_ranges.h"
#include "model/platform.h"
#include "report/charts.h"
#include "report/steps_table.h"
#include "report/svg.h"
#include "report/text_report.h"
#include "report/units.h"

namespace trainscope::report {
namespace {

// A table cell: "all" for a capture without steps.
std::string StepLabel(int32_t step) {
  return step == model::kNoStep ? "all" : std::to_string(step);
}

void Kpi(HtmlWriter& out, std::string_view label, const std::string& value) {
  out.Format("<div><span class=\"muted\">{}</span><b>{}</b></div>", label, value);
}

// A number's cell: the text as shown, the raw value in data-v for the
// table sort (empty: unknown).
void NumCell(HtmlWriter& out, const std::string& text, std::optional<double> raw) {
  if (raw) {
    out.Format("<td data-v=\"{}\">{}</td>", *raw, text);
  } else {
    out.Format("<td data-v=\"\">{}</td>", text);
  }
}
std::optional<double> NumOf(int64_t value) { return static_cast<double>(value); }

// The gains of the findings overlap; this is what applying all of them
// would leave.
void RenderProjection(HtmlWriter& out, const analysis::GainProjection& p) {
  if (p.groups == 0 && p.withheld > 0) {
    out.Raw(
        "<p><b>All findings applied:</b> n/a: every finding's gain is withheld (not enough to "
        "judge).</p>\n");
  } else {
    out.Format(
        "<p><b>All findings applied:</b> -{:.1f}%{}.{} <span class=\"muted\">The gains overlap: "
        "<a href=\"#gain-model-combined\">how they combine</a>.</span></p>\n",
        p.combined_gain_pct,
        p.step_ns && p.projected_step_ns
            ? fmt::format(", step {} → {}", FormatDurationNs(*p.step_ns),
                          FormatDurationNs(*p.projected_step_ns))
            : std::string(" of the step (step time unknown)"),
        p.replayed_findings > 0
            ? fmt::format(" {} {} replayed together across the ranks' step.", p.replayed_findings,
                          p.replayed_findings == 1 ? "finding" : "findings")
            : std::string());
  }
}

// Times on the device timeline: n/a when it is set aside or has no
// kernels; an issue rate needs two kernels.
std::string HtmlBusySpan(const analysis::StepDistribution& step) {
  return step.timeline_set_aside.empty() && step.kernels.count > 0
             ? FormatDurationNs(step.kernels.span_ns)
             : std::string("n/a");
}
// Unknown without a source of device events; no statistics of none.
std::string HtmlKernelCount(const analysis::KernelSummary& k) {
  return k.known ? FormatCount(k.count) : std::string("n/a");
}
std::string HtmlP50P90(const analysis::KernelSummary& k) {
  return k.count > 0 ? FormatDurationNs(k.p50_ns) + " / " + FormatDurationNs(k.p90_ns)
                     : std::string("n/a");
}
std::string HtmlIssueInterval(const analysis::StepDistribution& step) {
  return step.timeline_set_aside.empty() && step.kernels.count > 1
             ? FormatDurationNs(step.kernels.mean_issue_interval_ns)
             : std::string("n/a");
}

}  // namespace

void RenderSummarySection(HtmlWriter& out, const analysis::JobAnalysis& job) {
  out.Raw("<section id=\"summary\"><h2>Summary and findings</h2>\n");
  // Inputs that are more than one run (docs/clusters.md §0): said first.
  if (!job.runs.empty()) {
    out.Format(
        "<div class=\"runs\"><p><b>The inputs are {} runs, not one job; they are not "
        "merged.</b></p><ul>\n",
        job.runs.size());
    for (const auto& run : job.runs) {
      out.Format("<li>run {}{}: ranks {} <span class=\"muted\">({})</span>{}</li>\n", run.number,
                 run.analysed ? " (analysed)" : "", CompactRankList(run.ranks),
                 fmt::format("{}", fmt::join(run.sources, ", ")),
                 run.analysed ? std::string() : ": apart because " + run.why_apart);
    }
    out.Raw(
        "</ul><p class=\"muted\">Analyse another run with <code>--run N</code> (the same "
        "inputs), every run with <code>--run all</code>, or one run's inputs alone; "
        "comparing runs is the job of <code>trainscope compare</code> "
        "(docs/compare.md).</p></div>\n");
  }
  if (!job.ranks_without_device_activity.empty()) {
    const bool all = job.ranks_without_device_activity.size() == job.ranks.size();
    out.Format(
        "<details class=\"no-device\"><summary>No device activity{}</summary><p>{}.<br><b>Remedy:"
        "</b> {}</p></details>\n",
        all ? std::string()
            : fmt::format(" on rank{} {}", job.ranks_without_device_activity.size() > 1 ? "s" : "",
                          CompactRankList(job.ranks_without_device_activity)),
        analysis::kNoDeviceActivityMessage, analysis::kNoDeviceActivityRemedy);
  }
  RenderVerdict(out, job);
  RenderTopFindings(out, job);
  if (!job.findings.empty()) RenderProjection(out, job.projection);
  out.Raw("</section>\n");
}

void RenderFocusSection(HtmlWriter& out, const analysis::RankAnalysis* focus) {
  if (focus == nullptr || focus->selected() == nullptr) return;
  const auto& step = *focus->selected();
  const auto& k = step.kernels;
  out.Format("<section id=\"focus\"><h2>Rank {} in depth</h2>\n", focus->header.rank);
  out.Format("<p>Rank {}, {}: <span class=\"muted\">{}</span></p>\n", focus->header.rank,
             StepName(focus->selected_step), focus->selected_step_reason);
  out.Raw("<div class=\"kpi\">");
  Kpi(out, "kernels in the step", HtmlKernelCount(k));
  if (step.breakdown) {
    // The step's time as the budget measures it (an iteration on a GPU
    // trace), and the kernels' busy span beside it.
    Kpi(out, "step (" + step.breakdown->span + ")",
        FormatDurationNs(step.breakdown->budget.total_ns));
  }
  Kpi(out, "device busy span", HtmlBusySpan(step));
  Kpi(out, "one kernel issued every", HtmlIssueInterval(step));
  Kpi(out, "p50 / p90 duration", HtmlP50P90(k));
  Kpi(out, "kernels ≤ 50 µs", k.count > 0 ? FormatPercent(k.share_le_50us) : std::string("n/a"));
  if (step.breakdown) {
    const auto& b = step.breakdown->budget;
    double total = b.total_ns ? static_cast<double>(b.total_ns) : 1.0;
    Kpi(out, "computation", FormatPercent(b.computation_ns / total));
    Kpi(out, "exposed communication", FormatPercent(b.exposed_communication_ns / total));
    Kpi(out, "device idle", FormatPercent(b.idle_ns / total));
  }
  out.Raw("</div>\n</section>\n");
}

namespace {

// The ranks the density chart draws: all of them up to the legend's
// kDensityLegendRows; past that the stragglers first, then ranks evenly
// spaced in rank order (a thousand overlaid curves are neither readable
// nor small: 6 MB of SVG at 1,024 ranks).
std::vector<const analysis::RankAnalysis*> DensityRanks(
    const std::vector<const analysis::RankAnalysis*>& ranks,
    const std::vector<int32_t>& stragglers) {
  if (ranks.size() <= kDensityLegendRows) return ranks;
  std::vector<const analysis::RankAnalysis*> out;
  std::vector<bool> taken(ranks.size(), false);
  for (size_t i = 0; i < ranks.size() && out.size() < kDensityLegendRows; ++i) {
    if (std::find(stragglers.begin(), stragglers.end(), ranks[i]->header.rank) == stragglers.end())
      continue;
    out.push_back(ranks[i]);
    taken[i] = true;
  }
  const size_t left = kDensityLegendRows - out.size();
  for (size_t k = 0; k < left; ++k) {
    size_t i = k * ranks.size() / left;
    while (i < ranks.size() && taken[i]) ++i;
    if (i == ranks.size()) break;
    out.push_back(ranks[i]);
    taken[i] = true;
  }
  std::sort(out.begin(), out.end(),
            [](const auto* a, const auto* b) { return a->header.rank < b->header.rank; });
  return out;
}

}  // namespace

void RenderDistributionSection(HtmlWriter& out, const analysis::JobAnalysis& job,
                               const analysis::RankAnalysis* focus) {
  out.Raw("<section id=\"distribution\"><h2>Kernel distribution</h2>\n");
  std::vector<const analysis::RankAnalysis*> with_kernels;
  for (const auto& rank : job.ranks) {
    const auto* step = rank.selected();
    if (step != nullptr && step->kernels.count > 0) with_kernels.push_back(&rank);
  }
  const std::vector<const analysis::RankAnalysis*> drawn =
      DensityRanks(with_kernels, job.cluster.straggler_ranks);
  std::vector<DensitySeries> series;
  series.reserve(drawn.size());
  for (const analysis::RankAnalysis* rank : drawn) {
    series.push_back({fmt::format("rank {} {}", rank->header.rank, StepName(rank->selected_step)),
                      &rank->selected()->density});
  }
  if (!series.empty()) {
    out.Raw("<h3>Log-log density of kernel durations</h3>\n");
    out.Raw(
        "<p class=\"muted\">Mass at the left is many tiny kernels (launch-bound, unfused code); a "
        "fused run "
        "moves mass into a band at 10²–10⁴ µs.</p>\n");
    if (drawn.size() < with_kernels.size()) {
      out.Format(
          "<p class=\"muted\">{} of {} ranks drawn (as many as the legend names): the "
          "stragglers, then ranks evenly spaced in rank order; every rank's density is in the "
          "JSON (<code>ranks[].steps[].density</code>).</p>\n",
          drawn.size(), with_kernels.size());
    }
    out.Append(DensityChartSvg(series));
  }
  if (focus != nullptr && focus->selected() != nullptr) {
    const auto& step = *focus->selected();
    out.Format("<h3>Kernel families, rank {} {}</h3>\n", focus->header.rank, StepName(step.step));
    out.Append(FamilyBarsSvg(step.families));
    out.Raw(
        "<table><tr><th "
        "class=\"l\">family</th><th>events</th><th>share</th><th>time</th><th>share</th></tr>\n");
    std::vector<analysis::FamilyStat> families = step.families;
    std::stable_sort(families.begin(), families.end(),
                     [](const auto& a, const auto& b) { return a.total_ns > b.total_ns; });
    for (const auto& family : families) {
      if (family.count == 0) continue;
      out.Format(
          "<tr><td class=\"l\"><span class=\"swatch\" style=\"background:{}\"></span>{}</td>",
          FamilyColor(family.name), family.name);
      NumCell(out, FormatCount(family.count), NumOf(family.count));
      NumCell(out, FormatPercent(family.share_count), family.share_count);
      NumCell(out, FormatDurationNs(family.total_ns), NumOf(family.total_ns));
      NumCell(out, FormatPercent(family.share_time), family.share_time);
      out.Raw("</tr>\n");
    }
    out.Raw("</table>\n<h3>Top operators by total time</h3>\n");
    out.Raw(
        "<table><tr><th class=\"l\">operator type</th><th "
        "class=\"l\">family</th><th>count</th><th>total</th>"
        "<th>mean</th><th>max</th><th>share of kernel time</th></tr>\n");
    for (const auto& op : step.top_operators) {
      out.Format("<tr><td class=\"l\">{}</td><td class=\"l\">{}</td>", op.op_type, op.family);
      NumCell(out, FormatCount(op.count), NumOf(op.count));
      NumCell(out, FormatDurationNs(op.total_ns), NumOf(op.total_ns));
      NumCell(out, FormatDurationUs(MeanUs(op.total_ns, op.count)),
              MeanUs(op.total_ns, op.count) * 1e3);
      NumCell(out, FormatDurationNs(op.max_ns), NumOf(op.max_ns));
      NumCell(out, FormatPercent(op.share_time), op.share_time);
      out.Raw("</tr>\n");
    }
    out.Raw("</table>\n");
  }
  out.Raw("</section>\n");
}

void RenderTimelineSection(HtmlWriter& out, const analysis::RankAnalysis* focus) {
  out.Raw("<section id=\"timeline\"><h2>Timeline panorama</h2>\n");
  if (focus != nullptr && !focus->timeline.set_aside.empty()) {
    out.Format(
        "<p class=\"muted\">No picture of rank {}'s {}: its device timeline is set aside "
        "because {}. The step's time budget (Ranks) is step_trace_time.csv's.</p></section>\n",
        focus->header.rank, StepName(focus->timeline.step), focus->timeline.set_aside);
    return;
  }
  if (focus == nullptr || focus->timeline.kernel_count == 0) {
    out.Raw("<p class=\"muted\">No device activity to draw.</p></section>\n");
    return;
  }
  const auto& t = focus->timeline;
  out.Format(
      "<p>Rank {}, {}, span {}. Lanes: Compute, Comm (collectives), Other (copies, AI CPU), "
      "Free (device idle). Dashed boxes are the zoom windows below.</p>\n",
      focus->header.rank, StepName(t.step), FormatDurationNs(t.span_ns));
  if (t.drawn) out.Append(StepGanttSvg(t));
  out.Raw("<table><tr><th class=\"l\">lane</th><th>time</th><th>share of span</th></tr>\n");
  double span = t.span_ns > 0 ? Us(t.span_ns) : 1;
  for (auto [name, value] : {std::pair<const char*, double>{"Compute", Us(t.compute_ns)},
                             {"Comm", Us(t.comm_ns)},
                             {"Comm not overlapped", Us(t.comm_not_overlapped_ns)},
                             {"Other", Us(t.other_ns)},
                             {"Free", Us(t.free_ns)}}) {
    out.Format("<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td></tr>\n", name,
               FormatDurationUs(value), FormatPercent(value / span));
  }
  out.Raw("</table>\n");
  if (t.step_start_idle_ns > 0) {
    out.Format("<p><b>Step start:</b> the compute lane is idle for {} after the step starts",
               FormatDurationNs(t.step_start_idle_ns));
    if (!t.step_start_waits_for.empty()) {
      out.Format(
          ", while <code>{}</code> runs for {} (a barrier waiting for the slowest rank when it is "
          "a step-start collective)",
          t.step_start_waits_for, FormatDurationNs(t.step_start_wait_collective_ns));
    }
    out.Raw(".</p>\n");
  }
  if (!t.drawn) {
    out.Format(
        "<p class=\"muted\">No picture of step {0}: it is this rank's warm-up step, drawn only "
        "when asked for with <code>--step {0}</code>.</p>\n",
        t.step);
  }
  if (!t.zoom_centre.empty()) {
    out.Format("<p class=\"muted\">Zoom windows centred on the {}.</p>\n", t.zoom_centre);
  }
  if (!t.longest_gaps.empty()) {
    out.Raw(
        "<h3>Longest free gaps</h3><table><tr><th>at</th><th>duration</th><th class=\"l\">preceded "
        "by</th>"
        "<th class=\"l\">followed by</th></tr>\n");
    for (const auto& gap : t.longest_gaps) {
      out.Format("<tr><td>+{}</td><td>{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td></tr>\n",
                 FormatDurationNs(gap.start_ns), FormatDurationNs(gap.duration_ns), gap.before,
                 gap.after);
    }
    out.Raw("</table>\n");
  }
  for (size_t i = 0; i < t.zooms.size(); ++i) {
    const auto& zoom = t.zooms[i];
    out.Format("<h3 class=\"zoom\">Zoom {}: {} window from +{} ({} kernels)</h3>\n", i + 1,
               FormatDurationNs(zoom.width_ns), FormatDurationNs(zoom.start_ns), zoom.kernel_count);
    if (zoom.requested_width_ns > 0) {
      out.Format(
          "<p class=\"muted\">Narrowed from {} so that every kernel in it is drawn (at most {} "
          "kernels a window).</p>\n",
          FormatDurationNs(zoom.requested_width_ns), zoom.kernels.size());
    }
    out.Append(ZoomGanttSvg(t, zoom));
    out.Raw(
        "<details><summary>kernels in this "
        "window</summary><table><tr><th>start</th><th>duration</th>"
        "<th class=\"l\">type</th><th class=\"l\">family</th><th class=\"l\">name</th></tr>\n");
    size_t shown = 0;
    for (const auto& kernel : zoom.kernels) {
      if (++shown > 120) break;
      out.Format(
          "<tr><td>+{}</td><td>{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td "
          "class=\"l\">{}</td></tr>\n",
          FormatDurationNs(kernel.start_ns), FormatDurationNs(kernel.duration_ns),
          t.Str(kernel.op_type), t.Str(kernel.family), t.Str(kernel.name));
    }
    out.Raw("</table>");
    if (zoom.kernel_count > static_cast<int64_t>(std::min<size_t>(zoom.kernels.size(), 120))) {
      out.Format("<p class=\"muted\">first {} of {} kernels shown</p>",
                 std::min<size_t>(zoom.kernels.size(), 120), zoom.kernel_count);
    }
    out.Raw("</details>\n");
  }
  out.Raw("</section>\n");
}

namespace {

// The capture as the text report's header names it: the platform and the
// device the trace names, then the Ascend versions and profiler level.
std::string RankCaptureText(const analysis::RankHeader& header) {
  std::string capture(model::PlatformLabel(header.platform));
  if (!header.device_name.empty()) capture += ", " + header.device_name;
  for (const std::string* part :
       {&header.torch_npu_version, &header.cann_version, &header.profiler_level}) {
    if (!part->empty()) capture += ", " + *part;
  }
  return capture;
}

enum class Share { kComputation, kExposed, kIdle };

// A share of the step's interval-union budget, "n/a" where it has none.
std::string RanksTableShare(const analysis::StepDistribution* step, Share share) {
  if (!step->breakdown || step->breakdown->budget.total_ns <= 0) return "n/a";
  const auto& b = step->breakdown->budget;
  const double total = static_cast<double>(b.total_ns);
  switch (share) {
    case Share::kComputation:
      return FormatPercent(static_cast<double>(b.computation_ns) / total);
    case Share::kExposed:
      return FormatPercent(static_cast<double>(b.exposed_communication_ns) / total);
    case Share::kIdle:
      return FormatPercent(static_cast<double>(b.idle_ns) / total);
  }
  return "n/a";
}

}  // namespace

void RenderRanksSection(HtmlWriter& out, const analysis::JobAnalysis& job) {
  out.Raw("<section id=\"ranks\"><h2>Ranks</h2>\n");
  out.Raw(
      "<table><tr><th>rank</th><th>step</th><th>kernels</th><th>span</th><th>p50</th><th>p90</th>"
      "<th>≤ 50 µs</th><th>computation</th><th>exposed comm</th><th>idle</th><th "
      "class=\"l\">capture</th><th class=\"l\">workload</th></tr>\n");
  for (const auto& rank : job.ranks) {
    const auto* step = rank.selected();
    if (step == nullptr) continue;
    const std::string capture = RankCaptureText(rank.header);
    const auto& k = step->kernels;
    if (k.count == 0) {
      // Statistics of no kernels do not exist: n/a, as in the text and
      // JSON (null), with the reason; the count is unknown, not 0, when
      // the kernel table is missing.
      out.Format(
          "<tr><td>{}</td><td>{}</td><td>{}</td><td>n/a</td><td>n/a</td><td>n/a</td><td>n/a</td>"
          "<td>{}</td><td>{}</td><td>{}</td><td class=\"l\">{} <span class=\"muted\">(no "
          "kernels: {})</span></td><td class=\"l\" title=\"{}\">{}</td></tr>\n",
          rank.header.rank, StepLabel(rank.selected_step), k.known ? "0" : "n/a",
          RanksTableShare(step, Share::kComputation), RanksTableShare(step, Share::kExposed),
          RanksTableShare(step, Share::kIdle), capture,
          k.known ? std::string("empty kernel table") : NoKernelSource(rank.header),
          rank.header.workload_evidence, rank.header.workload);
      continue;
    }
    out.Format("<tr><td>{}</td><td>{}</td>", rank.header.rank, StepLabel(rank.selected_step));
    NumCell(out, FormatCount(k.count), NumOf(k.count));
    const bool span_known = step->timeline_set_aside.empty();
    NumCell(out, HtmlBusySpan(*step), span_known ? NumOf(k.span_ns) : std::optional<double>());
    NumCell(out, FormatDurationNs(k.p50_ns), k.p50_ns);
    NumCell(out, FormatDurationNs(k.p90_ns), k.p90_ns);
    out.Format(
        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"l\">{}</td><td class=\"l\" "
        "title=\"{}\">{}</td></tr>\n",
        FormatPercent(k.share_le_50us), RanksTableShare(step, Share::kComputation),
        RanksTableShare(step, Share::kExposed), RanksTableShare(step, Share::kIdle), capture,
        rank.header.workload_evidence, rank.header.workload);
  }
  out.Raw("</table>\n");
  RenderStepsTableHtml(out, BuildStepsTable(job));
  RenderClusterHtml(out, job);
  out.Raw("</section>\n");
}

void RenderDetailsSection(HtmlWriter& out, const analysis::JobAnalysis& job) {
  out.Raw("<section id=\"details\"><h2>Details: input health</h2>\n");
  for (const auto& issue : job.failed_inputs) {
    out.Format(
        "<p class=\"failed-input\"><b>not loaded</b>: {}: <span class=\"muted\">{}</span></p>\n",
        issue.path, issue.reason);
  }
  if (!job.skipped_inputs.empty()) {
    out.Format("<details class=\"skipped-inputs\"{}><summary>{} file{} skipped</summary><ul>\n",
               job.skipped_inputs.size() <= 10 ? " open" : "", job.skipped_inputs.size(),
               job.skipped_inputs.size() == 1 ? "" : "s");
    for (const auto& issue : job.skipped_inputs) {
      out.Format("<li>{}: <span class=\"muted\">{}</span></li>\n", issue.path, issue.reason);
    }
    out.Raw("</ul></details>\n");
  }
  out.Raw(
      "<table><tr><th>rank</th><th class=\"l\">file</th><th>rows "
      "read</th><th>used</th><th>skipped</th>"
      "<th class=\"l\">skip reasons</th></tr>\n");
  for (const auto& rank : job.ranks) {
    for (const auto& file : rank.header.files) {
      std::string reasons;
      for (const auto& [reason, count] : file.skipped_by_reason) {
        reasons += fmt::format("{}{} × {}", reasons.empty() ? "" : "; ", count, reason);
      }
      out.Format(
          "<tr><td>{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td "
          "class=\"l\">{}</td></tr>\n",
          rank.header.rank, file.file, file.rows_read, file.rows_used, file.rows_skipped, reasons);
    }
  }
  out.Raw("</table>\n");
  for (const auto& rank : job.ranks) {
    for (const auto& missing : rank.header.missing_files) {
      out.Format("<p class=\"muted\">rank {}: not present: {}</p>\n", rank.header.rank, missing);
    }
    for (const auto& warning : rank.header.warnings) {
      out.Format("<p>rank {}: {}</p>\n", rank.header.rank, warning);
    }
  }
  // Every file of the rank directories: read, or not read and why.
  bool any = false;
  for (const auto& rank : job.ranks) any = any || !rank.header.inventory.empty();
  if (any) {
    out.Raw(
        "<details class=\"inventory\"><summary>files in the rank directories</summary><table>"
        "<tr><th>rank</th><th class=\"l\">file</th><th class=\"l\">read</th></tr>\n");
    for (const auto& rank : job.ranks) {
      for (const model::InputFile& file : rank.header.inventory) {
        out.Format("<tr><td>{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td></tr>\n",
                   rank.header.rank, file.path,
                   file.read ? std::string("read") : "not read: " + file.reason);
      }
    }
    out.Raw("</table></details>\n");
  }
  out.Raw("</section>\n");
}

}  // namespace trainscope::report
