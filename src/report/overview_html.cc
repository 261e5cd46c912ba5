// The first screen of the HTML report: the verdict in one sentence, one
// stacked bar per rank (where its step's time goes) and the findings one
// line each, their evidence, cause and remedy folded under the line; and
// the section that states each gain model once, which the lines link to.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/common/gain_projection.h"
#include "core/rank_ranges.h"
#include "report/html_sections.h"
#include "report/text_report.h"

namespace trainscope::report {
namespace {

// Findings shown on the first screen; the rest fold under one line.
constexpr size_t kOverviewTopFindings = 5;
// Up to this many ranks, one labelled row each; above it, one column each.
constexpr size_t kOverviewBarRows = 16;

// One rank's step split into the four parts the bars draw.
struct OverviewRankBudget {
  int32_t rank = -1;
  int32_t step = model::kNoStep;
  int64_t total_ns = 0;
  int64_t compute_ns = 0;
  int64_t exposed_comm_ns = 0;
  int64_t idle_ns = 0;
  int64_t other_ns = 0;       // exposed copies and memsets; what the budget leaves
  int64_t step_start_ns = 0;  // compute idle at step start; 0 when unknown or none
  std::string waits_for;      // the collective running then
};

std::optional<OverviewRankBudget> OverviewBudgetOf(const analysis::RankAnalysis& rank) {
  const analysis::StepDistribution* step = rank.selected();
  if (step == nullptr || !step->breakdown || step->breakdown->budget.total_ns <= 0) {
    return std::nullopt;
  }
  const analysis::TimeBudget& b = step->breakdown->budget;
  OverviewRankBudget r;
  r.rank = rank.header.rank;
  r.step = rank.selected_step;
  r.total_ns = b.total_ns;
  r.compute_ns = std::clamp<int64_t>(b.computation_ns, 0, b.total_ns);
  r.exposed_comm_ns = std::clamp<int64_t>(b.exposed_communication_ns, 0, b.total_ns - r.compute_ns);
  r.idle_ns = std::clamp<int64_t>(b.idle_ns, 0, b.total_ns - r.compute_ns - r.exposed_comm_ns);
  r.other_ns = b.total_ns - r.compute_ns - r.exposed_comm_ns - r.idle_ns;
  // The panorama's wait is of the same step, on the device timeline.
  if (rank.timeline.step == rank.selected_step && rank.timeline.set_aside.empty()) {
    r.step_start_ns = std::clamp<int64_t>(rank.timeline.step_start_idle_ns, 0, b.total_ns);
    r.waits_for = rank.timeline.step_start_waits_for;
  }
  return r;
}

std::string OverviewShare(int64_t part, int64_t total) {
  return total > 0 ? FormatPercent(static_cast<double>(part) / static_cast<double>(total))
                   : std::string("n/a");
}

// "step 6" when every rank shows the same step, else what differs.
std::string OverviewStepName(const std::vector<OverviewRankBudget>& budgets) {
  if (budgets.empty()) return "The step";
  for (const auto& b : budgets) {
    if (b.step != budgets.front().step) return "The ranks' selected steps";
  }
  std::string name = StepName(budgets.front().step);
  name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
  return name;
}

// "ranks 0-3", "all 1,024 ranks but 7", "rank 2": for a line, without brackets.
std::string OverviewRanks(const std::vector<int32_t>& ranks, size_t total) {
  if (ranks.empty()) return {};
  if (total > 0 && ranks.size() > 1) {
    std::string set = CompactRankSet(ranks, total);
    if (set.starts_with("all ")) return set;
  }
  return fmt::format("rank{} {}", ranks.size() > 1 ? "s" : "", CompactRankList(ranks));
}

std::string OverviewSegmentTip(std::string_view what, int64_t ns, int64_t total) {
  return fmt::format("{}: {} ({})", what, FormatDurationNs(static_cast<double>(ns)),
                     OverviewShare(ns, total));
}

std::string OverviewRankTip(const OverviewRankBudget& b) {
  std::string tip =
      fmt::format("rank {}, {}: {}\n{}\n{}\n{}\n{}", b.rank, StepName(b.step),
                  FormatDurationNs(static_cast<double>(b.total_ns)),
                  OverviewSegmentTip("compute", b.compute_ns, b.total_ns),
                  OverviewSegmentTip("exposed communication", b.exposed_comm_ns, b.total_ns),
                  OverviewSegmentTip("idle", b.idle_ns, b.total_ns),
                  OverviewSegmentTip("other (exposed copies, memsets)", b.other_ns, b.total_ns));
  if (b.step_start_ns > 0) {
    // fmt::format, not a literal + a temporary: GCC 12 at -O3 (the release preset) warns falsely
    // of overlapping copies there (-Wrestrict, GCC bug 105329).
    tip += fmt::format("\n{}", OverviewSegmentTip("step-start wait", b.step_start_ns, b.total_ns));
    if (!b.waits_for.empty()) tip += ", while " + b.waits_for + " runs";
  }
  return tip;
}

// Width or height of |ns| as a percentage of |scale_ns|.
std::string OverviewPct(int64_t ns, int64_t scale_ns) {
  return fmt::format("{:.3f}", scale_ns > 0
                                   ? 100.0 * static_cast<double>(ns) / static_cast<double>(scale_ns)
                                   : 0.0);
}

void OverviewSegments(HtmlWriter& out, const OverviewRankBudget& b, const char* dimension) {
  const std::pair<const char*, int64_t> parts[] = {
      {"c", b.compute_ns}, {"x", b.exposed_comm_ns}, {"i", b.idle_ns}, {"o", b.other_ns}};
  for (const auto& [cls, ns] : parts) {
    if (ns > 0) {
      out.Format("<i class=\"{}\" style=\"{}:{}%\"></i>", cls, dimension,
                 OverviewPct(ns, b.total_ns));
    }
  }
}

void RenderOverviewLegend(HtmlWriter& out, bool any_wait) {
  out.Raw(
      "<div class=\"rb-legend\"><span><i class=\"c\"></i>compute</span><span><i "
      "class=\"x\"></i>exposed communication</span><span><i class=\"i\"></i>idle</span><span><i "
      "class=\"o\"></i>other (exposed copies, memsets)</span>");
  if (any_wait) {
    out.Raw("<span><i class=\"w\"></i>step-start wait (under the bar, part of it)</span>");
  }
  out.Raw("</div>\n");
}

void RenderOverviewBars(HtmlWriter& out, const analysis::JobAnalysis& job,
                        const std::vector<OverviewRankBudget>& budgets) {
  std::vector<int32_t> left_out;
  for (const auto& rank : job.ranks) {
    const bool shown = std::any_of(budgets.begin(), budgets.end(),
                                   [&](const auto& b) { return b.rank == rank.header.rank; });
    if (!shown) left_out.push_back(rank.header.rank);
  }
  out.Raw("<div id=\"rank-bars\">");
  if (budgets.empty()) {
    out.Raw(
        "<p class=\"muted\">No rank has a time budget of its step (no device activity, or no "
        "step with device events): no bars to draw.</p></div>\n");
    return;
  }
  int64_t longest = 0;
  bool any_wait = false;
  for (const auto& b : budgets) {
    longest = std::max(longest, b.total_ns);
    any_wait = any_wait || b.step_start_ns > 0;
  }
  out.Format(
      "<p class=\"rb-head\"><b>Where each rank's step goes</b> <span class=\"muted\">(bars to "
      "scale: the longest is {}; hover a bar for its numbers)</span></p>\n",
      FormatDurationNs(static_cast<double>(longest)));
  if (budgets.size() <= kOverviewBarRows) {
    out.Raw("<div class=\"rb-rows\">");
    for (const auto& b : budgets) {
      out.Format(
          "<div class=\"rb\" title=\"{}\"><span class=\"rb-l\">rank {}</span><span "
          "class=\"rb-t\"><span class=\"rb-bar\" style=\"width:{}%\">",
          OverviewRankTip(b), b.rank, OverviewPct(b.total_ns, longest));
      OverviewSegments(out, b, "width");
      out.Raw("</span>");
      if (b.step_start_ns > 0) {
        out.Format("<b class=\"w\" style=\"width:{}%\"></b>",
                   OverviewPct(b.step_start_ns, longest));
      }
      out.Format("</span><span class=\"rb-v\">{}</span></div>\n",
                 FormatDurationNs(static_cast<double>(b.total_ns)));
    }
    out.Raw("</div>");
  } else {
    // One column per rank: 1,024 ranks still fit one screen.
    // A white line between columns while they are wide enough to keep it.
    if (budgets.size() <= 200) {
      out.Raw("<div class=\"rb-cols sep\">");
    } else {
      out.Raw("<div class=\"rb-cols\">");
    }
    for (const auto& b : budgets) {
      out.Format("<span class=\"rc\" title=\"{}\" style=\"height:{}%\">", OverviewRankTip(b),
                 OverviewPct(b.total_ns, longest));
      OverviewSegments(out, b, "height");
      out.Raw("</span>");
    }
    out.Format("</div><div class=\"rb-axis muted\"><span>rank {}</span><span>rank {}</span></div>",
               budgets.front().rank, budgets.back().rank);
  }
  RenderOverviewLegend(out, any_wait && budgets.size() <= kOverviewBarRows);
  if (!left_out.empty()) {
    out.Format(
        "<p class=\"muted\">Not drawn: {} (no time budget of the step: no device activity, or no "
        "device events in the step).</p>\n",
        OverviewRanks(left_out, 0));
  }
  out.Raw("</div>\n");
}

// The step after removing one finding's gain alone.
std::string OverviewProjected(const analysis::Finding& f, std::optional<int64_t> step_ns) {
  if (f.gain_withheld || !step_ns) return "n/a";
  const double remaining = 1.0 - analysis::ClampGainPct(f.estimated_gain_pct) / 100.0;
  return FormatDurationNs(static_cast<double>(*step_ns) * remaining);
}

}  // namespace

std::vector<std::string> GainModelTexts(const analysis::JobAnalysis& job) {
  std::vector<std::string> texts;
  for (const auto& f : job.findings) {
    if (f.gain_model.empty()) continue;
    if (std::find(texts.begin(), texts.end(), f.gain_model) == texts.end()) {
      texts.push_back(f.gain_model);
    }
  }
  return texts;
}

void RenderVerdict(HtmlWriter& out, const analysis::JobAnalysis& job) {
  std::vector<OverviewRankBudget> budgets;
  for (const auto& rank : job.ranks) {
    if (auto b = OverviewBudgetOf(rank)) budgets.push_back(*b);
  }
  out.Raw("<p class=\"verdict\">");
  const auto& p = job.projection;
  if (budgets.empty()) {
    out.Raw("<b>The step's time budget is unknown</b>: no rank has device time in its step");
    if (p.step_ns) out.Format(" (the step takes {})", FormatDurationNs(*p.step_ns));
  } else {
    OverviewRankBudget sum;
    for (const auto& b : budgets) {
      sum.total_ns += b.total_ns;
      sum.compute_ns += b.compute_ns;
      sum.exposed_comm_ns += b.exposed_comm_ns;
      sum.idle_ns += b.idle_ns;
      sum.other_ns += b.other_ns;
    }
    const int64_t step_ns =
        p.step_ns ? *p.step_ns : sum.total_ns / static_cast<int64_t>(budgets.size());
    out.Format("{} takes <b>{}</b>{}: ", OverviewStepName(budgets), FormatDurationNs(step_ns),
               job.ranks.size() > 1 ? std::string(" (the ranks' mean)") : std::string());
    out.Format(
        "<b class=\"t-c\">{} compute</b>, <b class=\"t-x\">{} exposed communication</b>{}<b "
        "class=\"t-i\">{} idle</b>",
        OverviewShare(sum.compute_ns, sum.total_ns),
        OverviewShare(sum.exposed_comm_ns, sum.total_ns), sum.other_ns > 0 ? ", " : " and ",
        OverviewShare(sum.idle_ns, sum.total_ns));
    if (sum.other_ns > 0) out.Format(" and {} other", OverviewShare(sum.other_ns, sum.total_ns));
  }
  if (job.findings.empty()) {
    out.Raw("; no finding is above the thresholds of the method.");
  } else if (p.groups > 0 && p.step_ns && p.projected_step_ns) {
    out.Format("; applying the {} finding{} below could bring it to <b>{}</b> (−{:.1f}%).",
               job.findings.size(), job.findings.size() == 1 ? "" : "s",
               FormatDurationNs(*p.projected_step_ns), p.combined_gain_pct);
  } else {
    out.Format("; {} finding{} below, no step-time gain estimated.", job.findings.size(),
               job.findings.size() == 1 ? "" : "s");
  }
  out.Raw("</p>\n");
  RenderOverviewBars(out, job, budgets);
}

void RenderTopFindings(HtmlWriter& out, const analysis::JobAnalysis& job) {
  if (job.findings.empty()) return;
  const std::vector<std::string> models = GainModelTexts(job);
  out.Raw(
      "<div id=\"top-findings\"><p class=\"rb-head\"><b>Findings, ranked by estimated "
      "gain</b> <span class=\"muted\">(gain · step with that finding alone fixed · what · "
      "where; click a line for evidence, cause and remedy)</span></p>\n<ol class=\"findings\">\n");
  for (size_t i = 0; i < job.findings.size(); ++i) {
    const analysis::Finding& finding = job.findings[i];
    if (i == kOverviewTopFindings) {
      out.Format(
          "</ol>\n<details class=\"more-findings\"><summary>{} more finding{}</summary><ol "
          "class=\"findings\" start=\"{}\">\n",
          job.findings.size() - i, job.findings.size() - i == 1 ? "" : "s", i + 1);
    }
    const std::string where = OverviewRanks(analysis::RanksMeetingTitle(finding), job.ranks.size());
    out.Format(
        "<li><details class=\"finding\" id=\"finding-{}\"><summary class=\"fl\"><span "
        "class=\"gain\">{}</span><span class=\"proj\" title=\"the step with this finding alone "
        "fixed\">→ {}</span><span class=\"ft\" title=\"{}\"><b>{}</b></span>",
        i + 1,
        finding.gain_withheld ? std::string("n/a")
                              : fmt::format("{:.1f}%", finding.estimated_gain_pct),
        OverviewProjected(finding, job.projection.step_ns), finding.title, finding.title);
    if (!where.empty()) out.Format("<span class=\"fr muted\" title=\"{0}\">{0}</span>", where);
    out.Format("<code>{}</code></summary><div class=\"fd\">", finding.id);
    for (const auto& [title, ranks] : analysis::RanksWithOtherTitles(finding)) {
      out.Format("<p><b>Also:</b> {}: {}</p>", OverviewRanks(ranks, job.ranks.size()), title);
    }
    out.Format("<p><b>Evidence:</b> {}</p>", finding.evidence);
    if (!finding.root_cause.empty()) out.Format("<p><b>Cause:</b> {}</p>", finding.root_cause);
    out.Format("<p><b>Remedy:</b> {}</p>", finding.remedy);
    const auto model = std::find(models.begin(), models.end(), finding.gain_model);
    if (model != models.end()) {
      out.Format(
          "<p class=\"muted\">How the gain is estimated: <a href=\"#gain-model-{}\">gain model "
          "{}</a>.</p>",
          model - models.begin() + 1, model - models.begin() + 1);
    }
    out.Raw("</div></details></li>\n");
  }
  out.Raw("</ol>\n");
  if (job.findings.size() > kOverviewTopFindings) out.Raw("</details>\n");
  out.Raw("</div>\n");
}

void RenderGainModelsSection(HtmlWriter& out, const analysis::JobAnalysis& job) {
  if (job.findings.empty()) return;
  out.Raw(
      "<section id=\"gain-models\"><h2>How the gains are estimated</h2>\n<p class=\"muted\">Each "
      "finding's gain is an estimate of the step time it could save, by the model of its kind; "
      "each model is stated once here and linked from the findings that use it.</p>\n<dl "
      "class=\"gain-models\">\n");
  const std::vector<std::string> models = GainModelTexts(job);
  for (size_t m = 0; m < models.size(); ++m) {
    std::vector<std::string> ids;
    std::vector<size_t> numbers;
    for (size_t i = 0; i < job.findings.size(); ++i) {
      if (job.findings[i].gain_model != models[m]) continue;
      numbers.push_back(i + 1);
      if (std::find(ids.begin(), ids.end(), job.findings[i].id) == ids.end()) {
        ids.push_back(job.findings[i].id);
      }
    }
    out.Format("<dt id=\"gain-model-{}\">Gain model {}: ", m + 1, m + 1);
    for (size_t k = 0; k < ids.size(); ++k) {
      out.Format("{}<code>{}</code>", k == 0 ? "" : ", ", ids[k]);
    }
    out.Format(" <span class=\"muted\">(finding{} ", numbers.size() == 1 ? "" : "s");
    for (size_t k = 0; k < numbers.size(); ++k) {
      out.Format("{}<a href=\"#finding-{}\">{}</a>", k == 0 ? "" : ", ", numbers[k], numbers[k]);
    }
    out.Format(")</span></dt><dd>{}</dd>\n", models[m]);
  }
  out.Format(
      "<dt id=\"gain-model-combined\">All findings together</dt><dd>{}{}</dd>\n</dl></section>\n",
      analysis::kGainProjectionModel,
      job.projection.replayed_findings > 0 ? analysis::kReplayedProjectionModel : "");
}

}  // namespace trainscope::report
