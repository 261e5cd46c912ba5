#include "report/cluster_charts.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "report/svg.h"
#include "report/text_report.h"
#include "report/units.h"

namespace trainscope::report {

HtmlFragment RankScatterSvg(const analysis::ClusterAnalysis& c) {
  constexpr double kW = 640, kH = 360, kTop = 24, kBottom = 48;
  SvgCanvas svg(kW, kH, "ranks: step-start offset vs step time");
  // A rank without device events in the step has no step time or offset,
  // a rank whose timeline is set aside no offset: it is left out (not drawn
  // at 0, which would stretch the axes) and named under the plot.
  std::vector<int32_t> left_out;
  for (const auto& r : c.per_rank) {
    if (!r.has_device_step || r.timeline_set_aside) left_out.push_back(r.rank);
  }
  if (left_out.size() == c.per_rank.size()) {
    if (!left_out.empty()) {
      svg.Text(kW / 2, kH / 2,
               "not plotted: no rank has a device timeline of the step (no device events, or "
               "set aside)",
               "middle", 11);
    }
    return std::move(svg).Finish();
  }
  double x_max = 0, y_min = 1e300, y_max = 0;
  for (const auto& r : c.per_rank) {
    if (!r.has_device_step || r.timeline_set_aside) continue;
    x_max = std::max(x_max, Us(r.step_start_offset_ns));
    y_min = std::min(y_min, Us(r.step_time_ns));
    y_max = std::max(y_max, Us(r.step_time_ns));
  }
  if (x_max <= 0) x_max = 1;
  const double pad = std::max(1.0, (y_max - y_min) * 0.1);
  y_min = std::max(0.0, y_min - pad);
  y_max += pad;
  // Round ticks in one unit per axis; the margins are as wide as the labels
  // they hold (the y labels left, half the last x label right).
  const TimeTicks x_ticks = TimeAxisTicks(0, x_max, 6);
  const TimeTicks y_ticks = TimeAxisTicks(y_min, y_max, 6);
  double y_label_w = 0;
  for (const std::string& label : y_ticks.labels)
    y_label_w = std::max(y_label_w, TextWidth(label, 10));
  const double left = std::max(40.0, y_label_w + 12);
  const double right = std::max(20.0, TextWidth(x_ticks.labels.back(), 10) / 2 + 6);
  const double pw = kW - left - right, ph = kH - kTop - kBottom;
  auto X = [&](double v) { return left + v / x_max * pw; };
  auto Y = [&](double v) { return kTop + ph - (v - y_min) / (y_max - y_min) * ph; };
  svg.Line(left, kTop + ph, left + pw, kTop + ph, "#888");
  svg.Line(left, kTop, left, kTop + ph, "#888");
  for (size_t i = 0; i < x_ticks.values_us.size(); ++i) {
    const double x = X(x_ticks.values_us[i]);
    svg.Line(x, kTop + ph, x, kTop + ph + 4, "#888");
    svg.Text(x, kTop + ph + 16, x_ticks.labels[i], "middle", 10);
  }
  for (size_t i = 0; i < y_ticks.values_us.size(); ++i) {
    const double y = Y(y_ticks.values_us[i]);
    svg.Line(left - 4, y, left, y, "#888");
    svg.Text(left - 6, y + 3, y_ticks.labels[i], "end", 10);
  }
  svg.Text(left + pw / 2, kH - 8, "first-kernel start offset in the step", "middle", 11);
  svg.Text(left, kTop - 8, fmt::format("step time per rank ({})", StepName(c.step)), "start", 11);
  if (!left_out.empty()) {
    svg.Text(left + pw, kTop + 12,
             fmt::format("not plotted: rank{} {} (no device events in the step, or its "
                         "timeline set aside)",
                         left_out.size() > 1 ? "s" : "", fmt::join(left_out, ",")),
             "end", 10);
  }
  for (const auto& r : c.per_rank) {
    if (!r.has_device_step || r.timeline_set_aside) continue;
    const bool straggler = std::find(c.straggler_ranks.begin(), c.straggler_ranks.end(), r.rank) !=
                           c.straggler_ranks.end();
    const double x = X(Us(r.step_start_offset_ns)), y = Y(Us(r.step_time_ns));
    const std::string tip =
        fmt::format("rank {}: start +{:.2f} ms, step {:.2f} ms, step-start wait {:.2f} ms{}",
                    r.rank, Ms(r.step_start_offset_ns), Ms(r.step_time_ns),
                    Ms(r.step_start_wait_ns), straggler ? " (straggler)" : "");
    svg.Rect(x - 3, y - 3, 6, 6, straggler ? "#d62728" : "#1f77b4", tip);
    if (straggler || c.per_rank.size() <= 16) {
      svg.Text(x + 5, y - 4, fmt::format("{}", r.rank), "start", 9);
    }
  }
  return std::move(svg).Finish();
}

HtmlFragment LinkMatrixSvg(const analysis::ClusterAnalysis& cluster) {
  const std::vector<analysis::LinkCell>& cells = cluster.link_matrix;
  if (cells.empty()) return HtmlFragment();
  std::map<int32_t, size_t> index;     // rank -> row/column
  std::map<std::string, double> best;  // transport -> fastest GB/s
  for (const analysis::LinkCell& c : cells) {
    index.emplace(c.src, 0);
    index.emplace(c.dst, 0);
    double& b = best[c.transport];
    b = std::max(b, c.bandwidth_gbps());
  }
  size_t next = 0;
  for (auto& [rank, i] : index) i = next++;
  const double n = static_cast<double>(index.size());
  constexpr double kLabel = 40;
  const double cell = std::clamp(480.0 / n, 2.0, 24.0);
  const double size = kLabel + cell * n + 10;
  SvgCanvas svg(size + 150, size, "link bandwidth matrix, src rows by dst columns");
  const bool labelled = cell >= 10;
  for (const auto& [rank, i] : index) {
    if (!labelled) break;
    const double at = kLabel + cell * static_cast<double>(i) + cell / 2;
    svg.Text(kLabel - 4, at + 4, fmt::format("{}", rank), "end", 9);
    svg.Text(at, kLabel - 4, fmt::format("{}", rank), "middle", 9);
  }
  std::vector<std::string> transports;
  transports.reserve(best.size());
  for (const auto& [t, b] : best) transports.push_back(t);
  int64_t without_time = 0;  // bandwidth unknown: not drawn, counted below the legend
  for (const analysis::LinkCell& c : cells) {
    if (c.time_ms <= 0) {
      ++without_time;
      continue;
    }
    const double b = best[c.transport];
    const double share = b > 0 ? c.bandwidth_gbps() / b : 0;
    const size_t colour =
        static_cast<size_t>(std::find(transports.begin(), transports.end(), c.transport) -
                            transports.begin()) %
        (kPaletteSize - 1);
    svg.Format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" "
        "fill-opacity=\"{:.2f}\"><title>{} -> {} {}: {:.1f} MB in {:.2f} ms, {:.2f} GB/s ({:.0f}% "
        "of the fastest {} link)</title></rect>",
        kLabel + cell * static_cast<double>(index[c.dst]),
        kLabel + cell * static_cast<double>(index[c.src]), cell - 0.5, cell - 0.5, kPalette[colour],
        0.15 + 0.85 * share, c.src, c.dst, c.transport, c.size_mb, c.time_ms, c.bandwidth_gbps(),
        share * 100, c.transport);
  }
  double y = kLabel;
  for (size_t t = 0; t < transports.size(); ++t) {
    svg.Rect(size, y, 12, 12, kPalette[t % (kPaletteSize - 1)]);
    const double fastest = best[transports[t]];
    svg.Text(size + 16, y + 10,
             fastest > 0 ? fmt::format("{} (fastest {:.1f} GB/s)", transports[t], fastest)
                         : fmt::format("{} (bandwidth n/a)", transports[t]),
             "start", 10);
    y += 18;
  }
  svg.Text(size, y + 14, "paler = slower than the", "start", 9, "#555");
  svg.Text(size, y + 26, "transport's fastest link", "start", 9, "#555");
  if (without_time > 0) {
    svg.Text(size, y + 42, fmt::format("{} link(s) without a time:", without_time), "start", 9,
             "#555");
    svg.Text(size, y + 54, "bandwidth n/a, not drawn", "start", 9, "#555");
  }
  return std::move(svg).Finish();
}

}  // namespace trainscope::report
