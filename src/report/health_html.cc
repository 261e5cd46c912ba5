// `trainscope health --html`: per run the loss, grad-norm, step-time and
// TGS / MFU curves with the findings marked at their steps, the numbers of
// the text summary and the findings (docs/health.md). House style
// (html_style.h), inline SVG without script (svg.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "report/health_report.h"
#include "report/html_report.h"
#include "report/html_style.h"
#include "report/html_writer.h"
#include "report/number_text.h"
#include "report/svg.h"

namespace trainscope::report {
namespace {

using analysis::CurvePoint;
using analysis::RunHealth;

struct Event {
  int64_t step = 0;
  std::string label;
};

std::string Tick(double v) {
  const double a = std::fabs(v);
  if (a >= 1e6 || (a > 0 && a < 1e-2)) return fmt::format("{:.1e}", v);
  if (a >= 100) return fmt::format("{:.0f}", v);
  return fmt::format("{:.3g}", v);
}

// Step ticks: whole steps at a round spacing (1, 2, 5 x 10^k; at least 1),
// about five over [lo, hi], so that a short run never repeats a label.
std::vector<int64_t> WholeStepTicks(double lo, double hi) {
  const double raw = std::max(1.0, (hi - lo) / 5);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double spacing = magnitude;
  for (const double f : {1.0, 2.0, 5.0, 10.0}) {
    spacing = f * magnitude;
    if (spacing >= raw) break;
  }
  const auto step = std::max<int64_t>(1, static_cast<int64_t>(std::llround(spacing)));
  std::vector<int64_t> ticks;
  auto t = static_cast<int64_t>(std::ceil(lo / static_cast<double>(step))) * step;
  for (; static_cast<double>(t) <= hi && ticks.size() < 12; t += step) ticks.push_back(t);
  return ticks;
}

// Points in step order (a curve is drawn by step, never in file order).
std::vector<CurvePoint> ByStep(std::vector<CurvePoint> points) {
  std::stable_sort(points.begin(), points.end(),
                   [](const CurvePoint& a, const CurvePoint& b) { return a.step < b.step; });
  return points;
}

// One curve over the steps, a log y axis when it spans more than three
// decades (a grad-norm explosion); findings as dashed vertical lines.
HtmlFragment CurveSvg(const std::string& title, const std::vector<CurvePoint>& unsorted,
                      const std::vector<Event>& events, const char* color) {
  const std::vector<CurvePoint> points = ByStep(unsorted);
  constexpr double kWidth = 1100, kHeight = 230, kLeft = 70, kRight = 20, kTop = 24, kBottom = 34;
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  SvgCanvas svg(kWidth, kHeight, title);
  svg.Text(kLeft, 15, title, "start", 12, "#14213d");
  double x_lo = static_cast<double>(points.front().step);
  double x_hi = static_cast<double>(points.back().step);
  double y_lo = points.front().value, y_hi = y_lo;
  for (const CurvePoint& p : points) {
    y_lo = std::min(y_lo, p.value);
    y_hi = std::max(y_hi, p.value);
  }
  const bool log_y = y_lo > 0 && y_hi / y_lo > 1e3;
  auto ty = [&](double v) { return log_y ? std::log10(v) : v; };
  double lo = ty(y_lo), hi = ty(y_hi);
  if (hi - lo < 1e-12) {
    lo -= 0.5 * std::max(1e-9, std::fabs(lo));
    hi += 0.5 * std::max(1e-9, std::fabs(hi));
  }
  // From 0 when the curve is near 0 or nearly flat (throughput, MFU): a
  // 0.1% wobble is not drawn as a saw-tooth.
  if (!log_y && lo > 0 && (lo < 0.25 * hi || hi - lo < 0.1 * hi)) lo = 0;
  if (x_hi <= x_lo) x_hi = x_lo + 1;
  auto X = [&](double step) { return kLeft + (step - x_lo) / (x_hi - x_lo) * plot_w; };
  auto Y = [&](double v) { return kTop + plot_h - (ty(v) - lo) / (hi - lo) * plot_h; };
  svg.Rect(kLeft, kTop, plot_w, plot_h, "#fafafa");
  for (int k = 0; k <= 4; ++k) {
    const double t = lo + (hi - lo) * k / 4;
    const double y = kTop + plot_h - (t - lo) / (hi - lo) * plot_h;
    svg.Line(kLeft, y, kLeft + plot_w, y, "#e3e3e3");
    svg.Text(kLeft - 6, y + 4, Tick(log_y ? std::pow(10.0, t) : t), "end", 10);
  }
  for (const int64_t s : WholeStepTicks(x_lo, x_hi)) {
    svg.Text(X(static_cast<double>(s)), kTop + plot_h + 15, std::to_string(s), "middle", 10);
  }
  svg.Text(kLeft + plot_w / 2, kHeight - 4, log_y ? "step (log y axis)" : "step", "middle", 10);
  for (const Event& e : events) {
    const double step = static_cast<double>(e.step);
    if (step < x_lo || step > x_hi) continue;
    const double x = X(step);
    svg.Format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#D55E00\" "
        "stroke-width=\"1.2\" stroke-dasharray=\"4 3\"><title>{}</title></line>",
        x, kTop, x, kTop + plot_h, e.label);
    svg.Text(x + 3, kTop + 10, e.label, "start", 9, "#D55E00");
  }
  std::vector<std::pair<double, double>> line;
  line.reserve(points.size());
  for (const CurvePoint& p : points) line.emplace_back(X(static_cast<double>(p.step)), Y(p.value));
  svg.Polyline(line, color, 1.4, title);
  return std::move(svg).Finish();
}

// The series of one file on one step axis, a line per run and rank (a
// resumed run's second line starts where its checkpoint was, never drawn
// back from the first's end).
struct SeriesCurve {
  std::string label;
  std::vector<CurvePoint> points;
};

HtmlFragment SeriesCurvesSvg(const std::string& title, const std::vector<SeriesCurve>& series) {
  constexpr double kWidth = 1100, kHeight = 260, kLeft = 70, kRight = 20, kTop = 24, kBottom = 34;
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  SvgCanvas svg(kWidth, kHeight, title);
  svg.Text(kLeft, 15, title, "start", 12, "#14213d");
  double x_lo = 0, x_hi = 0, y_lo = 0, y_hi = 0;
  bool first = true;
  for (const SeriesCurve& c : series) {
    for (const CurvePoint& p : c.points) {
      const auto x = static_cast<double>(p.step);
      x_lo = first ? x : std::min(x_lo, x);
      x_hi = first ? x : std::max(x_hi, x);
      y_lo = first ? p.value : std::min(y_lo, p.value);
      y_hi = first ? p.value : std::max(y_hi, p.value);
      first = false;
    }
  }
  if (x_hi <= x_lo) x_hi = x_lo + 1;
  if (y_hi - y_lo < 1e-12) {
    y_lo -= 0.5 * std::max(1e-9, std::fabs(y_lo));
    y_hi += 0.5 * std::max(1e-9, std::fabs(y_hi));
  }
  auto X = [&](double step) { return kLeft + (step - x_lo) / (x_hi - x_lo) * plot_w; };
  auto Y = [&](double v) { return kTop + plot_h - (v - y_lo) / (y_hi - y_lo) * plot_h; };
  svg.Rect(kLeft, kTop, plot_w, plot_h, "#fafafa");
  for (int k = 0; k <= 4; ++k) {
    const double t = y_lo + (y_hi - y_lo) * k / 4;
    svg.Line(kLeft, Y(t), kLeft + plot_w, Y(t), "#e3e3e3");
    svg.Text(kLeft - 6, Y(t) + 4, Tick(t), "end", 10);
  }
  for (const int64_t s : WholeStepTicks(x_lo, x_hi)) {
    svg.Text(X(static_cast<double>(s)), kTop + plot_h + 15, std::to_string(s), "middle", 10);
  }
  svg.Text(kLeft + plot_w / 2, kHeight - 4, "step", "middle", 10);
  constexpr size_t kColours = std::size(kPalette);
  for (size_t i = 0; i < series.size(); ++i) {
    const char* color = kPalette[i % kColours];
    std::vector<std::pair<double, double>> line;
    for (const CurvePoint& p : ByStep(series[i].points)) {
      line.emplace_back(X(static_cast<double>(p.step)), Y(p.value));
    }
    svg.Polyline(line, color, 1.4, series[i].label);
    svg.Text(kLeft + plot_w - 4, kTop + 12 + 12 * static_cast<double>(i), series[i].label, "end",
             10, color);
  }
  return std::move(svg).Finish();
}

// Per file with several series: loss and step time, a line per series.
void FileSeriesSection(HtmlWriter& out, const std::vector<HealthRun>& runs, size_t begin,
                       size_t end) {
  struct Metric {
    const char* title;
    const std::vector<CurvePoint> analysis::RunCurves::*points;
  };
  const Metric metrics[] = {{"loss by run and rank", &analysis::RunCurves::loss},
                            {"step time (ms) by run and rank", &analysis::RunCurves::step_ms}};
  for (const Metric& m : metrics) {
    std::vector<SeriesCurve> curves;
    for (size_t i = begin; i < end; ++i) {
      const std::vector<CurvePoint>& points = runs[i].health.curves.*(m.points);
      if (points.empty()) continue;
      std::string label = HealthSeriesName(runs[i].health);
      if (label.empty()) label = "series " + std::to_string(i - begin + 1);
      curves.push_back({std::move(label), points});
    }
    if (curves.size() >= 2) out.Append(SeriesCurvesSvg(m.title, curves));
  }
}

// The step a finding names: "step", else "last_step" (error lines).
std::optional<int64_t> FindingStep(const analysis::Finding& f) {
  std::optional<int64_t> step;
  for (const auto& [k, v] : f.evidence_values) {
    if (k == "step" || (k == "last_step" && !step)) step = static_cast<int64_t>(v);
  }
  return step;
}

void PlainKpi(HtmlWriter& out, const char* label, const std::string& value) {
  out.Format("<div>{}<b>{}</b></div>", label, value);
}

void RunSection(HtmlWriter& out, const HealthRun& run, size_t index) {
  const RunHealth& h = run.health;
  const std::string series = HealthSeriesName(h);
  out.Format("<section id=\"run{}\"><h2>{}{}</h2>", index, h.path,
             series.empty() ? "" : " [" + series + "]");
  if (!run.not_read.empty()) {
    out.Format("<p><b>not read</b>: {}</p>", run.not_read);
    for (const std::string& line : run.first_lines) out.Format("<pre>{}</pre>", line);
    out.Raw("</section>\n");
    return;
  }
  out.Format("<p class=\"muted\">{} &middot; {} records",
             std::string(model::LogFormatName(h.format)), h.records);
  if (h.first_step) out.Format(" &middot; steps {}&ndash;{}", *h.first_step, *h.last_step);
  out.Format(" &middot; lines {} read, {} used, {} skipped</p>", run.ledger.rows_read(),
             run.ledger.rows_used(), run.ledger.rows_skipped());
  out.Raw("<div class=\"kpi\">");
  PlainKpi(out, "median step (ms)", FixedOrNa(h.step_ms.median));
  PlainKpi(out, "p90 step (ms)", FixedOrNa(h.step_ms.p90));
  PlainKpi(out, "drift over run",
           h.step_ms_drift_pct ? fmt::format("{:+.1f}%", *h.step_ms_drift_pct) : "n/a");
  const std::optional<double> tgs = h.model && h.model->tgs ? h.model->tgs : h.tokens_per_s.median;
  PlainKpi(out, "TGS (tokens/s/device)", FixedOrNa(tgs, 0));
  PlainKpi(out, "MFU (log)", h.mfu_pct.median ? FixedOrNa(h.mfu_pct.median) + "%" : "n/a");
  PlainKpi(out, "MFU (--model)",
           h.model && h.model->mfu_pct ? FixedOrNa(h.model->mfu_pct) + "%" : "n/a");
  PlainKpi(out, "loss first → last",
           FixedOrNa(h.loss.first, 3) + " → " + FixedOrNa(h.loss.last, 3));
  PlainKpi(out, "findings", std::to_string(h.findings.size()));
  out.Raw("</div>");

  std::vector<Event> events;
  for (const analysis::Finding& f : h.findings) {
    if (const std::optional<int64_t> step = FindingStep(f)) events.push_back({*step, f.id});
  }
  struct Chart {
    const char* title;
    const std::vector<CurvePoint>* points;
    const char* color;
  };
  const bool model_tgs = h.model && h.model->tgs_source == "model";
  const bool model_mfu = h.model && h.model->mfu_pct;
  const Chart charts[] = {
      {"loss", &h.curves.loss, kPalette[0]},
      {"grad norm", &h.curves.grad_norm, kPalette[1]},
      {h.step_ms_from_timestamps ? "step time (ms, from line timestamps)" : "step time (ms)",
       &h.curves.step_ms, kPalette[2]},
      {model_tgs ? "TGS (tokens/s per device, from --model)" : "tokens/s (as the log prints)",
       &h.curves.tokens_per_s, kPalette[3]},
      {model_mfu ? "MFU % (from --model)" : "MFU % (as the log prints)", &h.curves.mfu_pct,
       kPalette[5]},
  };
  for (const Chart& c : charts) {
    if (c.points->size() < 2) {
      out.Format("<p class=\"muted\">{}: not in this log</p>", c.title);
      continue;
    }
    out.Append(CurveSvg(c.title, *c.points, events, c.color));
  }
  if (h.findings.empty()) {
    out.Raw("<p>No findings.</p>");
  }
  for (const analysis::Finding& f : h.findings) {
    out.Format(
        "<div class=\"finding\"><b>[{}] {}</b><br>{}<br><span class=\"muted\">remedy: "
        "{}</span></div>",
        f.id, f.title, f.evidence, f.remedy);
  }
  out.Raw("</section>\n");
}

// Efficiency per run as bars against the ideal 100% line, the device
// count and the throughput per device under each bar.
HtmlFragment ScalingSvg(const analysis::ScalingTable& t) {
  constexpr double kWidth = 760, kHeight = 260, kLeft = 60, kTop = 24, kBottom = 50;
  const double plot_w = kWidth - kLeft - 20, plot_h = kHeight - kTop - kBottom;
  SvgCanvas svg(kWidth, kHeight, "scaling efficiency");
  svg.Text(kLeft, 15, "scaling efficiency: " + t.metric + " over " + t.baseline + "'s", "start", 12,
           "#14213d");
  double top = 110;
  for (const analysis::ScalingRow& r : t.rows)
    top = std::max(top, r.efficiency_pct.value_or(0) + 10);
  auto Y = [&](double pct) { return kTop + plot_h - pct / top * plot_h; };
  for (double pct = 0; pct <= top; pct += 25) {
    svg.Line(kLeft, Y(pct), kLeft + plot_w, Y(pct), "#e3e3e3");
    svg.Text(kLeft - 6, Y(pct) + 4, fmt::format("{:.0f}%", pct), "end", 10);
  }
  const double slot = plot_w / static_cast<double>(std::max<size_t>(1, t.rows.size()));
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const analysis::ScalingRow& r = t.rows[i];
    const double x = kLeft + slot * static_cast<double>(i) + slot * 0.2;
    const double w = slot * 0.6;
    if (r.efficiency_pct) {
      const double pct = *r.efficiency_pct;
      svg.Rect(x, Y(pct), w, Y(0) - Y(pct), kPalette[0],
               fmt::format("{}: {:.1f}% efficiency, {} per device", r.name, pct,
                           r.per_device ? FixedOrNa(r.per_device) : "n/a"));
      svg.Text(x + w / 2, Y(pct) - 4, fmt::format("{:.1f}%", pct), "middle", 10);
    }
    svg.Text(x + w / 2, kTop + plot_h + 15, fmt::format("{} dev", r.devices), "middle", 10);
    svg.Text(x + w / 2, kTop + plot_h + 29, FixedOrNa(r.per_device), "middle", 9, "#666");
  }
  svg.Format(
      "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#D55E00\" "
      "stroke-dasharray=\"5 3\"><title>ideal: 100%</title></line>",
      kLeft, Y(100), kLeft + plot_w, Y(100));
  return std::move(svg).Finish();
}

void ScalingSection(HtmlWriter& out, const analysis::ScalingTable& t) {
  out.Raw("<section id=\"scaling\"><h2>Scaling</h2>");
  if (t.metric.empty()) {
    out.Raw("<p>No throughput every run prints (tokens/s, TFLOP/s, or --model TGS).</p>");
  }
  out.Raw("<table><tr><th class=\"l\">run</th><th>devices</th><th>logs</th>");
  out.Format("<th>{}</th><th>total</th><th>speed-up</th><th>efficiency</th><th>step ms</th></tr>",
             t.metric.empty() ? std::string("per device") : t.metric);
  for (const analysis::ScalingRow& r : t.rows) {
    out.Format("<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>", r.name,
               r.devices, r.logs, FixedOrNa(r.per_device), FixedOrNa(r.total, 0));
    out.Format("<td>{}</td><td>{}</td><td>{}</td></tr>",
               r.speedup ? fmt::format("{:.2f}x", *r.speedup) : "n/a",
               r.efficiency_pct ? fmt::format("{:.1f}%", *r.efficiency_pct) : "n/a",
               FixedOrNa(r.step_ms));
  }
  out.Raw("</table>");
  if (!t.metric.empty()) out.Append(ScalingSvg(t));
  out.Raw("</section>\n");
}

std::string Ranks(const std::vector<int64_t>& ranks) {
  std::string out;
  for (int64_t r : ranks) out += (out.empty() ? "" : ", ") + std::to_string(r);
  return out.empty() ? "none" : out;
}

void FlightSection(HtmlWriter& out, const analysis::FlightRecorderReport& f) {
  out.Raw("<section id=\"flight\"><h2>Flight recorder</h2>");
  out.Format("<p>{} dump(s), ranks {}</p>", f.dumps, Ranks(f.ranks));
  for (const analysis::CollectiveHang& h : f.hangs) {
    std::vector<int64_t> missing;
    for (const analysis::MissingRank& m : h.missing) missing.push_back(m.rank);
    out.Format(
        "<div class=\"finding\"><b>group {} ({}): collective #{} {}</b><br>arrived: {}<br>did "
        "not arrive: {}<br>no dump: {}</div>",
        h.pg_name, h.pg_desc, h.seq, h.op, Ranks(h.arrived), Ranks(missing), Ranks(h.no_dump));
  }
  out.Raw("</section>\n");
}

}  // namespace

std::string RenderHealthHtml(const std::vector<HealthRun>& runs, std::string_view version,
                             const HealthExtras& extras) {
  HtmlWriter out;
  out.Raw("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
  out.Raw(kHtmlGeneratorMeta);
  out.Format(" {}\">", std::string(version));
  out.Raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
  out.Raw("<title>trainscope health</title><style>");
  out.Raw(kReportStyle);
  out.Raw("</style></head><body>\n<header><h1>trainscope health</h1>");
  out.Format("<p>{} &middot; trainscope {}</p></header>\n<main>\n", FullVerdict(runs, extras),
             std::string(version));
  if (extras.scaling != nullptr) ScalingSection(out, *extras.scaling);
  if (extras.flight != nullptr) FlightSection(out, *extras.flight);
  for (size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].first_of_file) {
      size_t end = i + 1;
      while (end < runs.size() && !runs[end].first_of_file) ++end;
      if (end - i >= 2) {
        out.Format("<section><h2>{}: {} series</h2>", runs[i].health.path, end - i);
        FileSeriesSection(out, runs, i, end);
        out.Raw("</section>\n");
      }
    }
    RunSection(out, runs[i], i);
  }
  out.Raw("</main></body></html>\n");
  return std::move(out).Finish().markup();
}

}  // namespace trainscope::report
