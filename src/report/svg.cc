#include "report/svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace trainscope::report {

SvgCanvas::SvgCanvas(double width, double height, std::string_view aria_label) {
  out_.Format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {:.0f} {:.0f}\" width=\"{:.0f}\" "
      "height=\"{:.0f}\" role=\"img\" aria-label=\"{}\" font-family=\"sans-serif\">",
      width, height, width, height, aria_label);
}

void SvgCanvas::Rect(double x, double y, double w, double h, std::string_view fill,
                     std::string_view tooltip, HtmlLiteral extra_attributes) {
  if (w <= 0 || h <= 0) return;
  out_.Format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\"", x,
              y, w, h, fill);
  if (!extra_attributes.text().empty()) {
    out_.Raw(" ");
    out_.Raw(extra_attributes);
  }
  if (tooltip.empty()) {
    out_.Raw("/>");
  } else {
    out_.Format("><title>{}</title></rect>", tooltip);
  }
}

void SvgCanvas::Line(double x1, double y1, double x2, double y2, std::string_view stroke,
                     double width) {
  out_.Format(
      "<line x1=\"{:.2f}\" y1=\"{:.2f}\" x2=\"{:.2f}\" y2=\"{:.2f}\" stroke=\"{}\" "
      "stroke-width=\"{}\"/>",
      x1, y1, x2, y2, stroke, width);
}

void SvgCanvas::Text(double x, double y, std::string_view text, std::string_view anchor,
                     double size, std::string_view fill) {
  out_.Format(
      "<text x=\"{:.2f}\" y=\"{:.2f}\" text-anchor=\"{}\" font-size=\"{}\" fill=\"{}\">{}</text>",
      x, y, anchor, size, fill, text);
}

void SvgCanvas::Polyline(const std::vector<std::pair<double, double>>& points,
                         std::string_view stroke, double width, std::string_view tooltip) {
  if (points.empty()) return;
  out_.Format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" points=\"", stroke, width);
  for (const auto& [x, y] : points) out_.Format("{:.1f},{:.1f} ", x, y);
  out_.Raw("\"");
  if (tooltip.empty()) {
    out_.Raw("/>");
  } else {
    out_.Format("><title>{}</title></polyline>", tooltip);
  }
}

HtmlFragment SvgCanvas::Finish() && {
  out_.Raw("</svg>");
  return std::move(out_).Finish();
}

std::string ShortDurationLabel(double us) {
  if (us < 1000) return fmt::format("{:g} µs", us);
  if (us < 1e6) return fmt::format("{:g} ms", us / 1000);
  return fmt::format("{:g} s", us / 1e6);
}

TimeTicks TimeAxisTicks(double lo_us, double hi_us, int max_ticks) {
  TimeTicks ticks;
  max_ticks = std::max(max_ticks, 2);
  const double range = hi_us - lo_us;
  if (!(range > 0) || !std::isfinite(range)) {
    ticks.values_us.push_back(lo_us);
  } else {
    // From a step just under range / max_ticks up the 1-2-5 ladder until the
    // range holds at most max_ticks multiples of it.
    double magnitude = std::pow(10.0, std::floor(std::log10(range / max_ticks)) - 1);
    for (int rung = 0;; ++rung) {
      const double step = magnitude * std::array<double, 3>{1, 2, 5}[rung % 3];
      if (rung % 3 == 2) magnitude *= 10;
      const double first = std::ceil(lo_us / step - 1e-9);
      const double last = std::floor(hi_us / step + 1e-9);
      if (last - first + 1 <= max_ticks) {
        ticks.step_us = step;
        for (double k = first; k <= last; k += 1) ticks.values_us.push_back(k * step);
        break;
      }
    }
  }
  const double largest =
      std::max(std::abs(ticks.values_us.front()), std::abs(ticks.values_us.back()));
  double scale = 1;  // µs per unit
  if (largest >= 1e6) {
    // A char, not a one-letter literal: GCC 12 at -O3 warns falsely of an
    // overlapping copy in that assignment (-Wrestrict, GCC bug 105329).
    ticks.unit = 's';
    scale = 1e6;
  } else if (largest >= 1e3) {
    ticks.unit = "ms";
    scale = 1e3;
  } else if (largest >= 1 || largest == 0) {
    ticks.unit = "µs";
  } else {
    ticks.unit = "ns";
    scale = 1e-3;
  }
  const double step_in_unit = ticks.step_us / scale;
  const int decimals =
      step_in_unit > 0 ? std::max(0, static_cast<int>(std::ceil(-std::log10(step_in_unit) - 1e-9)))
                       : 0;
  for (double v : ticks.values_us) {
    double shown = v / scale;
    if (std::abs(shown) < step_in_unit * 1e-6) shown = 0;  // no "-0"
    ticks.labels.push_back(fmt::format("{:.{}f} {}", shown, decimals, ticks.unit));
  }
  return ticks;
}

double TextWidth(std::string_view text, double font_size) {
  double chars = 0;
  for (char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) chars += 1;  // UTF-8 lead bytes
  }
  return chars * font_size * 0.62;
}

}  // namespace trainscope::report
