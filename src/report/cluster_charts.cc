#include "report/cluster_charts.h"

#include <fmt/format.h>

#include <algorithm>

#include "report/svg.h"
#include "report/text_report.h"
#include "report/units.h"

namespace trainscope::report {

HtmlFragment RankScatterSvg(const analysis::ClusterAnalysis& c) {
  constexpr double kW = 640, kH = 360, kLeft = 70, kRight = 20, kTop = 24, kBottom = 48;
  SvgCanvas svg(kW, kH, "ranks: step-start offset vs step time");
  if (c.per_rank.empty()) return std::move(svg).Finish();
  double x_max = 0, y_min = 1e300, y_max = 0;
  for (const auto& r : c.per_rank) {
    x_max = std::max(x_max, Us(r.step_start_offset_ns));
    y_min = std::min(y_min, Us(r.step_time_ns));
    y_max = std::max(y_max, Us(r.step_time_ns));
  }
  if (x_max <= 0) x_max = 1;
  const double pad = std::max(1.0, (y_max - y_min) * 0.1);
  y_min = std::max(0.0, y_min - pad);
  y_max += pad;
  const double pw = kW - kLeft - kRight, ph = kH - kTop - kBottom;
  auto X = [&](double v) { return kLeft + v / x_max * pw; };
  auto Y = [&](double v) { return kTop + ph - (v - y_min) / (y_max - y_min) * ph; };
  svg.Line(kLeft, kTop + ph, kLeft + pw, kTop + ph, "#888");
  svg.Line(kLeft, kTop, kLeft, kTop + ph, "#888");
  for (int i = 0; i <= 4; ++i) {
    const double xv = x_max * i / 4, yv = y_min + (y_max - y_min) * i / 4;
    svg.Text(X(xv), kTop + ph + 16, ShortDurationLabel(xv), "middle", 10);
    svg.Text(kLeft - 6, Y(yv) + 3, ShortDurationLabel(yv), "end", 10);
  }
  svg.Text(kLeft + pw / 2, kH - 8, "first-kernel start offset in the step", "middle", 11);
  svg.Text(kLeft, kTop - 8, fmt::format("step time per rank ({})", StepName(c.step)), "start", 11);
  for (const auto& r : c.per_rank) {
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

}  // namespace trainscope::report
