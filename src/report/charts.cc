#include "report/charts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "report/svg.h"
#include "report/text_report.h"
#include "report/units.h"

namespace trainscope::report {
namespace {

constexpr double kChartLeft = 70, kChartRight = 20, kChartTop = 20, kChartBottom = 40;

// A time axis in us along [x0, x1] at y: round ticks in one unit, each
// label kept inside [0, canvas_w] (the last one would otherwise cross the
// chart's right edge).
void TimeAxis(SvgCanvas& svg, double x0, double x1, double y, double t0_us, double t1_us,
              double canvas_w) {
  svg.Line(x0, y, x1, y, "#444");
  const double range = std::max(t1_us - t0_us, 1e-3);
  const TimeTicks ticks = TimeAxisTicks(t0_us, t1_us, 9);
  for (size_t i = 0; i < ticks.values_us.size(); ++i) {
    const double x = x0 + (ticks.values_us[i] - t0_us) / range * (x1 - x0);
    svg.Line(x, y, x, y + 4, "#444");
    const double half = TextWidth(ticks.labels[i], 10) / 2;
    svg.Text(std::clamp(x, half + 2, canvas_w - half - 2), y + 16, ticks.labels[i], "middle", 10);
  }
}

}  // namespace

std::string FamilyColor(const std::string& family) {
  static const std::map<std::string, std::string> kKnown = {{"matmul/attention", "#0072B2"},
                                                            {"custom/linear attention", "#56B4E9"},
                                                            {"norm", "#CC79A7"},
                                                            {"elementwise", "#E69F00"},
                                                            {"glue/data movement", "#F0E442"},
                                                            {"loss", "#009E73"},
                                                            {"optimizer", "#882255"},
                                                            {"communication", "#D55E00"},
                                                            {"memory", "#117733"},
                                                            {"wait", "#DDDDDD"},
                                                            {"other", "#999999"}};
  auto it = kKnown.find(family);
  if (it != kKnown.end()) return it->second;
  size_t hash = std::hash<std::string>{}(family);
  return kPalette[hash % kPaletteSize];
}

HtmlFragment DensityChartSvg(const std::vector<DensitySeries>& series) {
  const double width = 760, height = 340;
  SvgCanvas svg(width, height, "Log-log density of kernel durations");
  const double plot_w = width - kChartLeft - kChartRight - 120,
               plot_h = height - kChartTop - kChartBottom;
  // x: log10(us) from 0 (1 us) to 6 (1 s); y: log10(density) from floor to ceil.
  double max_density = 1e-9, min_density = 1e9;
  for (const auto& s : series) {
    for (const auto& bin : s.density->bins) {
      if (bin.count == 0) continue;
      max_density = std::max(max_density, bin.density_per_decade);
      min_density = std::min(min_density, bin.density_per_decade);
    }
  }
  if (min_density > max_density) min_density = max_density / 10;
  double y_hi = std::ceil(std::log10(max_density));
  double y_lo = std::floor(std::log10(min_density));
  if (y_hi - y_lo < 1) y_lo = y_hi - 1;
  auto X = [&](double us) { return kChartLeft + std::log10(us) / 6.0 * plot_w; };
  auto Y = [&](double d) { return kChartTop + (y_hi - std::log10(d)) / (y_hi - y_lo) * plot_h; };
  svg.Rect(kChartLeft, kChartTop, plot_w, plot_h, "#fafafa");
  for (int decade = 0; decade <= 6; ++decade) {
    double x = X(std::pow(10.0, decade));
    svg.Line(x, kChartTop, x, kChartTop + plot_h, "#ddd");
    svg.Text(x, kChartTop + plot_h + 16, ShortDurationLabel(std::pow(10.0, decade)), "middle", 10);
  }
  for (double e = y_lo; e <= y_hi; e += 1) {
    double y = Y(std::pow(10.0, e));
    svg.Line(kChartLeft, y, kChartLeft + plot_w, y, "#ddd");
    svg.Text(kChartLeft - 6, y + 4, fmt::format("1e{:g}", e), "end", 10);
  }
  svg.Text(kChartLeft + plot_w / 2, height - 6, "kernel duration (log scale)", "middle", 11);
  svg.Format(
      "<text x=\"14\" y=\"{:.0f}\" font-size=\"11\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 14 {:.0f})\">fraction of kernels per decade</text>",
      kChartTop + plot_h / 2, kChartTop + plot_h / 2);
  for (size_t i = 0; i < series.size(); ++i) {
    const std::string color = kPalette[i % kPaletteSize];
    std::vector<std::pair<double, double>> points;
    auto flush = [&] {
      if (!points.empty()) svg.Polyline(points, color, 1.6, series[i].label);
      points.clear();
    };
    for (const auto& bin : series[i].density->bins) {
      if (bin.count == 0) {
        flush();
        continue;
      }
      const double lo_us = Us(bin.lo_ns), hi_us = Us(bin.hi_ns);
      double centre = std::sqrt(lo_us * hi_us);
      points.emplace_back(X(centre), Y(bin.density_per_decade));
      svg.Rect(X(centre) - 2, Y(bin.density_per_decade) - 2, 4, 4, color,
               fmt::format("{}: {} kernels between {} and {} ({:.4f} per decade)", series[i].label,
                           bin.count, FormatDurationUs(lo_us), FormatDurationUs(hi_us),
                           bin.density_per_decade));
    }
    flush();
    if (i < kDensityLegendRows) {
      double ly = kChartTop + 12 + static_cast<double>(i) * 16;
      svg.Rect(width - 125, ly - 8, 12, 3, color);
      svg.Text(width - 108, ly - 3, series[i].label, "start", 10);
    }
  }
  if (series.size() > kDensityLegendRows)
    svg.Text(width - 125, kChartTop + 12 + 16.0 * kDensityLegendRows,
             fmt::format("+{} more", series.size() - kDensityLegendRows));
  return std::move(svg).Finish();
}

HtmlFragment FamilyBarsSvg(const std::vector<analysis::FamilyStat>& families) {
  std::vector<analysis::FamilyStat> shown;
  for (const auto& family : families) {
    if (family.count > 0) shown.push_back(family);
  }
  std::stable_sort(shown.begin(), shown.end(),
                   [](const auto& a, const auto& b) { return a.total_ns > b.total_ns; });
  const double row = 22, width = 760, label_w = 170, bar_w = 240;
  const double height = kChartTop + 24 + row * static_cast<double>(shown.size()) + 10;
  SvgCanvas svg(width, height,
                "Kernel families: share of device events (kernels, copies, memsets) and of their "
                "time");
  svg.Text(label_w + bar_w / 2, kChartTop + 4, "share of device events", "middle", 11);
  svg.Text(label_w + bar_w + 80 + bar_w / 2, kChartTop + 4, "share of device time", "middle", 11);
  double y = kChartTop + 16;
  for (const auto& family : shown) {
    std::string color = FamilyColor(family.name);
    svg.Text(label_w - 8, y + 14, family.name, "end", 11);
    std::string tooltip =
        fmt::format("{}: {} events ({}), {} ({})", family.name, FormatCount(family.count),
                    FormatPercent(family.share_count), FormatDurationNs(family.total_ns),
                    FormatPercent(family.share_time));
    svg.Rect(label_w, y + 3, bar_w * family.share_count, row - 6, color, tooltip);
    svg.Text(label_w + bar_w * family.share_count + 4, y + 14, FormatPercent(family.share_count),
             "start", 10);
    double x2 = label_w + bar_w + 80;
    svg.Rect(x2, y + 3, bar_w * family.share_time, row - 6, color, tooltip);
    svg.Text(x2 + bar_w * family.share_time + 4, y + 14, FormatPercent(family.share_time), "start",
             10);
    y += row;
  }
  return std::move(svg).Finish();
}

namespace {

// Draws four lanes: the columns of |overview| (runs of the dominant family,
// and the Free lane), or with |kernels| each kernel of at least a pixel on
// its own (zooms) instead of the runs. [t0, t1) in us, the charts' unit.
void DrawLanes(SvgCanvas& svg, const analysis::StepTimeline& timeline,
               const analysis::TimelineOverview& overview,
               const std::vector<analysis::TimelineKernel>* kernels, double t0, double t1,
               double x0, double plot_w, double y0, double lane_h) {
  const char* lanes[] = {"Compute", "Comm", "Other", "Free"};
  for (int lane = 0; lane < 4; ++lane) {
    double y = y0 + lane * (lane_h + 6);
    svg.Text(x0 - 8, y + lane_h / 2 + 4, lanes[lane], "end", 11);
    svg.Rect(x0, y, plot_w, lane_h, "#f4f4f4");
  }
  const double range = std::max(t1 - t0, 1e-6);
  const double us_per_column = Us(overview.ns_per_column);
  if (kernels != nullptr) {
    for (const auto& kernel : *kernels) {
      const double start_us = Us(kernel.start_ns), duration_us = Us(kernel.duration_ns);
      double start = std::max(start_us, t0);
      double end = std::min(start_us + duration_us, t1);
      if (end <= start && !(kernel.duration_ns == 0 && start_us >= t0 && start_us < t1)) continue;
      double x_start = x0 + (start - t0) / range * plot_w;
      double x_end = x0 + (end - t0) / range * plot_w;
      auto lane = static_cast<int>(kernel.lane);
      if (x_end - x_start < 1.0) continue;
      svg.Rect(x_start, y0 + lane * (lane_h + 6), std::max(x_end - x_start, 0.5), lane_h,
               FamilyColor(timeline.Str(kernel.family)),
               fmt::format("{} [{}] at +{} for {}\n{}", timeline.Str(kernel.op_type),
                           timeline.Str(kernel.family), FormatDurationUs(start_us),
                           FormatDurationUs(duration_us), timeline.Str(kernel.name)),
               "stroke=\"#fff\" stroke-width=\"0.3\"");
    }
  } else {
    for (int lane = 0; lane < 3; ++lane) {
      double y = y0 + lane * (lane_h + 6);
      for (const analysis::OverviewRun& run : overview.lanes[static_cast<size_t>(lane)]) {
        svg.Rect(
            x0 + run.first_column, y, run.end_column - run.first_column, lane_h,
            FamilyColor(timeline.Str(run.family)),
            fmt::format("{}: {} kernels, {} of kernel time in {}", timeline.Str(run.family),
                        run.kernels, FormatDurationNs(run.time_ns),
                        FormatDurationUs((run.end_column - run.first_column) * us_per_column)));
      }
    }
  }
  double y_free = y0 + 3 * (lane_h + 6);
  for (const analysis::ColumnRange& free : overview.free) {
    svg.Rect(x0 + free.first_column, y_free, free.end_column - free.first_column, lane_h, "#555",
             fmt::format("device idle ~{}",
                         FormatDurationUs((free.end_column - free.first_column) * us_per_column)));
  }
}

}  // namespace

HtmlFragment StepGanttSvg(const analysis::StepTimeline& timeline, int64_t axis_span_ns) {
  const double width = 1100, lane_h = 26, axis_w = width - kChartLeft - kChartRight;
  const double height = kChartTop + 4 * (lane_h + 6) + kChartBottom;
  SvgCanvas svg(width, height,
                fmt::format("Timeline of {}: compute, communication, other and free lanes",
                            StepName(timeline.step)));
  // The overview was aggregated at one column per pixel of this plot.
  static_assert(1100 - kChartLeft - kChartRight == analysis::kOverviewColumns);
  const double span_us = Us(timeline.span_ns);
  const double axis_us = std::max(span_us, Us(axis_span_ns));
  // The step's own width on the (possibly longer) common axis.
  const double plot_w = axis_w * (span_us / std::max(axis_us, 1e-6));
  DrawLanes(svg, timeline, timeline.overview, nullptr, 0, span_us, kChartLeft, plot_w, kChartTop,
            lane_h);
  for (size_t i = 0; i < timeline.zooms.size(); ++i) {
    const auto& zoom = timeline.zooms[i];
    double x = kChartLeft + Us(zoom.start_ns) / std::max(span_us, 1e-6) * plot_w;
    double w = std::max(2.0, Us(zoom.width_ns) / std::max(span_us, 1e-6) * plot_w);
    svg.Format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" "
        "stroke=\"#000\" stroke-dasharray=\"3,2\" class=\"zoom-outline\"><title>zoom {} "
        "({})</title></rect>",
        x, kChartTop - 3.0 + static_cast<double>(i), w,
        4 * (lane_h + 6) - 6 + 6.0 - 2.0 * static_cast<double>(i), i + 1,
        FormatDurationNs(zoom.width_ns));
  }
  TimeAxis(svg, kChartLeft, kChartLeft + axis_w, kChartTop + 4 * (lane_h + 6), 0, axis_us, width);
  return std::move(svg).Finish();
}

HtmlFragment ZoomGanttSvg(const analysis::StepTimeline& timeline,
                          const analysis::ZoomWindow& zoom) {
  const double width = 1100, lane_h = 26, plot_w = width - kChartLeft - kChartRight;
  const double height = kChartTop + 4 * (lane_h + 6) + kChartBottom;
  SvgCanvas svg(width, height,
                fmt::format("Zoom: {} from +{}", FormatDurationNs(zoom.width_ns),
                            FormatDurationNs(zoom.start_ns)));
  const analysis::TimelineOverview columns = analysis::AggregateColumns(
      zoom.kernels, zoom.start_ns, zoom.start_ns + zoom.width_ns, static_cast<int32_t>(plot_w));
  const double start_us = Us(zoom.start_ns), width_us = Us(zoom.width_ns);
  DrawLanes(svg, timeline, columns, &zoom.kernels, start_us, start_us + width_us, kChartLeft,
            plot_w, kChartTop, lane_h);
  TimeAxis(svg, kChartLeft, kChartLeft + plot_w, kChartTop + 4 * (lane_h + 6), start_us,
           start_us + width_us, width);
  return std::move(svg).Finish();
}

}  // namespace trainscope::report
