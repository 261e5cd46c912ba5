// The HTML page of `trainscope accuracy`: verdict, the error along the
// network as an SVG curve (log scale, the first divergence marked), the
// differing spans, the worst tensors, thresholds and input health; and the
// loss-curve page (both curves on one axis, the separation step marked).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/accuracy_report.h"
#include "report/html_report.h"
#include "report/html_style.h"
#include "report/number_text.h"
#include "report/svg.h"

namespace trainscope::report {
namespace {

using analysis::AccuracyComparison;
using analysis::TensorPair;

void Head(HtmlWriter& out, std::string_view version, std::string_view subtitle) {
  out.Reserve(1 << 16);
  out.Raw("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
  out.Raw(kHtmlGeneratorMeta);
  out.Format(" {}\">", version);
  out.Raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
  out.Raw("<title>trainscope accuracy</title><style>");
  out.Raw(kReportStyle);
  out.Raw("</style></head><body>\n<header><h1>trainscope accuracy</h1>");
  out.Format("<p>{} &middot; trainscope {}</p></header>\n<main>\n", subtitle, version);
}

// Error per forward output along the network, log10 scale; non-finite
// errors (NaN/Inf disagreements) drawn at the top.
HtmlFragment GrowthSvg(const AccuracyComparison& c) {
  const double width = 1100, height = 300, left = 60, right = 20, top = 20, bottom = 40;
  SvgCanvas svg(width, height, "Error along the network");
  const double lo = -9, hi = 1;
  auto y_of = [&](double error) {
    const double l = !std::isfinite(error) ? hi
                     : error <= 0          ? lo
                                           : std::clamp(std::log10(error), lo, hi);
    return top + (hi - l) / (hi - lo) * (height - top - bottom);
  };
  const size_t n = c.growth.size();
  auto x_of = [&](size_t i) {
    return left + (n <= 1 ? 0.0 : static_cast<double>(i) / static_cast<double>(n - 1)) *
                      (width - left - right);
  };
  for (int e = static_cast<int>(lo); e <= static_cast<int>(hi); e += 2) {
    const double y = y_of(std::pow(10.0, e));
    svg.Line(left, y, width - right, y, "#dddddd");
    svg.Text(left - 6, y + 4, fmt::format("1e{}", e), "end", 10);
  }
  std::vector<std::pair<double, double>> points;
  for (size_t i = 0; i < n; ++i) points.emplace_back(x_of(i), y_of(c.growth[i].error));
  if (!points.empty()) svg.Polyline(points, "#0072B2", 1.5, "relative error per forward output");
  for (size_t i = 0; i < n; ++i) {
    const TensorPair& p = c.pairs[c.growth[i].pair];
    svg.Rect(points[i].first - 2, points[i].second - 2, 4, 4, p.diverged ? "#D55E00" : "#0072B2",
             fmt::format("{}: {}", p.name(), ThreeSignificant(c.growth[i].error)));
    if (c.first_divergence && c.growth[i].pair >= *c.first_divergence &&
        (i == 0 || c.growth[i - 1].pair < *c.first_divergence)) {
      svg.Line(points[i].first, top, points[i].first, height - bottom, "#D55E00", 1.5);
      svg.Text(points[i].first + 4, top + 10, "first divergence", "start", 11, "#D55E00");
    }
  }
  svg.Text(left, height - 12, "forward outputs in execution order", "start", 11);
  return std::move(svg).Finish();
}

void Verdict(HtmlWriter& out, const AccuracyComparison& c) {
  out.Raw("<section id=\"verdict\"><h2>Verdict</h2>");
  for (const auto& [label, s] :
       {std::pair<const char*, const analysis::DumpSide*>{"BASE", &c.base}, {"NEW", &c.next}}) {
    out.Format("<p><b>{}</b> {} &middot; {} {} {} &middot; {} tensors, {} calls</p>\n", label,
               s->root, s->kind, s->task, s->selected, s->tensors, s->ops);
  }
  if (c.first_divergence) {
    const TensorPair& p = c.pairs[*c.first_divergence];
    out.Format(
        "<div class=\"finding\"><b>First divergence at <code>{}</code></b> (module {})<br>tensor "
        "<code>{}</code>: {}<br>{} of {} tensor pairs diverge</div>\n",
        p.op(), p.module().empty() ? "n/a" : p.module(), p.name(), p.detail, c.diverged,
        c.pairs.size());
  } else if (c.verdict == analysis::Verdict::kNoDivergence) {
    out.Format("<p><b>No divergence</b>: {} tensor pairs within the thresholds.</p>\n",
               c.pairs.size());
  } else {
    out.Format("<div class=\"finding\"><b>Cannot conclude</b>: {}</div>\n", c.verdict_reason);
  }
  out.Format("<p>coverage: {}</p>\n", c.verdict == analysis::Verdict::kCannotConclude
                                          ? std::string("see above")
                                          : c.verdict_reason);
  out.Format(
      "<div class=\"kpi\"><div><b>{}</b>calls matched</div><div><b>{}</b>BASE only</div>"
      "<div><b>{}</b>NEW only</div><div><b>{}</b>differing spans</div></div>\n",
      c.matched_ops, c.base_only_ops, c.next_only_ops, c.spans.size());
  out.Raw("</section>\n");
}

void Spans(HtmlWriter& out, const AccuracyComparison& c) {
  if (c.spans.empty()) return;
  out.Raw(
      "<section id=\"spans\"><h2>Differing spans</h2><table><tr><th class=\"l\">after</th>"
      "<th class=\"l\">module</th><th class=\"l\">BASE calls</th><th class=\"l\">NEW "
      "calls</th></tr>\n");
  for (const analysis::DifferingSpan& s : c.spans) {
    std::string base, next;
    for (const std::string& op : s.base_ops) base += (base.empty() ? "" : ", ") + op;
    for (const std::string& op : s.next_ops) next += (next.empty() ? "" : ", ") + op;
    out.Format(
        "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td>"
        "<td class=\"l\">{}</td></tr>\n",
        s.after.empty() ? "the start" : s.after, s.module, base, next);
  }
  out.Raw("</table></section>\n");
}

void Worst(HtmlWriter& out, const AccuracyComparison& c) {
  if (c.worst.empty()) return;
  out.Raw(
      "<section id=\"worst\"><h2>Worst tensors</h2><table><tr><th class=\"l\">tensor</th>"
      "<th class=\"l\">module</th><th>dtype</th><th>cosine</th><th>max abs</th><th>max rel</th>"
      "<th>rel err</th><th>NaN B/N</th><th class=\"l\">state</th></tr>\n");
  for (const size_t i : c.worst) {
    const TensorPair& p = c.pairs[i];
    const auto& m = p.metrics;
    out.Format(
        "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td><td class=\"l\">{}{}</td></tr>\n",
        p.name(), p.module(), p.dtype(), m && m->cosine ? fmt::format("{:.6f}", *m->cosine) : "n/a",
        m ? ThreeSignificant(m->max_abs) : "n/a", m ? ThreeSignificant(m->max_rel) : "n/a",
        ThreeSignificant(p.error), m ? fmt::format("{}/{}", m->nan_base, m->nan_next) : "n/a",
        PairStateName(p.state), p.diverged ? ": " + p.detail : "");
  }
  out.Raw("</table></section>\n");
}

void Limits(HtmlWriter& out, const AccuracyComparison& c) {
  out.Raw(
      "<section id=\"thresholds\"><h2>Thresholds and inputs</h2><table><tr><th "
      "class=\"l\">dtype</th>"
      "<th>min cosine</th><th>max abs</th><th>stat rel</th><th class=\"l\">origin</th></tr>\n");
  for (const auto& [dtype, l] : c.limits_used) {
    out.Format(
        "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td "
        "class=\"l\">{}</td></tr>\n",
        dtype, l.min_cosine, l.max_abs, l.stat_rel, l.origin);
  }
  out.Raw(
      "</table><table><tr><th class=\"l\">file</th><th>read</th><th>used</th><th>skipped</th>"
      "<th class=\"l\">reasons</th></tr>\n");
  for (const analysis::DumpSide* side : {&c.base, &c.next}) {
    for (const RowLedger& l : side->ledgers) {
      std::string reasons;
      for (const auto& [reason, n] : l.skipped_by_reason())
        reasons += fmt::format("{} {}; ", n, reason);
      for (const auto& [reason, n] : l.notes_by_reason())
        reasons += fmt::format("noted {} {}; ", n, reason);
      out.Format(
          "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td "
          "class=\"l\">{}</td></tr>\n",
          l.file(), l.rows_read(), l.rows_used(), l.rows_skipped(), reasons);
    }
  }
  out.Raw("</table></section>\n");
}

}  // namespace

std::string RenderAccuracyHtml(const AccuracyComparison& c, std::string_view version) {
  HtmlWriter out;
  Head(out, version, "BASE vs NEW tensor dumps");
  Verdict(out, c);
  if (!c.growth.empty()) {
    out.Raw(
        "<section id=\"growth\"><h2>Error along the network</h2><p class=\"muted\">Relative "
        "RMSE of each forward output (or the largest relative statistic delta), log scale; "
        "orange points diverge.</p>");
    out.Append(GrowthSvg(c));
    out.Raw("</section>\n");
  }
  Spans(out, c);
  Worst(out, c);
  Limits(out, c);
  out.Raw("</main></body></html>\n");
  return std::string(std::move(out).Finish().markup());
}

std::string RenderLossHtml(const analysis::LossComparison& c, std::string_view version) {
  HtmlWriter out;
  Head(out, version, "loss curves");
  out.Raw("<section id=\"verdict\"><h2>Verdict</h2>");
  out.Format("<p><b>BASE</b> {} ({} points) &middot; <b>NEW</b> {} ({} points)</p>\n", c.base_label,
             c.base_points, c.next_label, c.next_points);
  if (c.separation_step) {
    out.Format(
        "<div class=\"finding\"><b>The curves separate at step {}</b> (relative difference "
        "{} &gt; {} for {} steps in a row)</div>\n",
        *c.separation_step, ThreeSignificant(*c.separation_rel), c.tolerance, c.sustain);
  } else {
    out.Format("<p><b>The curves overlap</b> within {} (largest relative difference {}).</p>\n",
               c.tolerance, ThreeSignificant(c.max_rel));
  }
  const double width = 1100, height = 300, left = 60, right = 20, top = 20, bottom = 30;
  SvgCanvas svg(width, height, "Loss curves");
  int64_t s0 = INT64_MAX, s1 = INT64_MIN;
  double l0 = INFINITY, l1 = -INFINITY;
  for (const auto* curve : {&c.base, &c.next}) {
    for (const analysis::LossPoint& p : *curve) {
      s0 = std::min(s0, p.step);
      s1 = std::max(s1, p.step);
      if (std::isfinite(p.loss)) {
        l0 = std::min(l0, p.loss);
        l1 = std::max(l1, p.loss);
      }
    }
  }
  if (s0 <= s1 && l0 <= l1) {
    const double span_s = std::max<double>(1, static_cast<double>(s1 - s0));
    const double span_l = l1 > l0 ? l1 - l0 : 1;
    auto xy = [&](const analysis::LossPoint& p) {
      return std::pair<double, double>(
          left + static_cast<double>(p.step - s0) / span_s * (width - left - right),
          top + (l1 - (std::isfinite(p.loss) ? p.loss : l1)) / span_l * (height - top - bottom));
    };
    for (const auto& [curve, colour] :
         {std::pair<const std::vector<analysis::LossPoint>*, const char*>{&c.base, "#999999"},
          {&c.next, "#0072B2"}}) {
      std::vector<std::pair<double, double>> points;
      for (const analysis::LossPoint& p : *curve) points.push_back(xy(p));
      if (!points.empty()) svg.Polyline(points, colour, 1.5);
    }
    if (c.separation_step) {
      const double x = xy({*c.separation_step, l1}).first;
      svg.Line(x, top, x, height - bottom, "#D55E00", 1.5);
      svg.Text(x + 4, top + 10, fmt::format("separate at step {}", *c.separation_step), "start", 11,
               "#D55E00");
    }
    svg.Text(left, height - 8,
             fmt::format("steps {} to {}; loss {} to {}; grey BASE, blue NEW", s0, s1,
                         ThreeSignificant(l0), ThreeSignificant(l1)),
             "start", 11);
  }
  out.Append(std::move(svg).Finish());
  out.Raw("</section></main></body></html>\n");
  return std::string(std::move(out).Finish().markup());
}

}  // namespace trainscope::report
