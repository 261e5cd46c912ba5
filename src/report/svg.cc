#include "report/svg.h"

#include <fmt/format.h>

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

}  // namespace trainscope::report
