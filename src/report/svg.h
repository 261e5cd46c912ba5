// SvgCanvas: builds one inline <svg> element as text.
//
// Every text that reaches the SVG (labels, tooltips) is escaped: kernel
// names come from profiles, which are untrusted input. Tooltips use SVG
// <title> children, which browsers show on hover without any script.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace trainscope::report {

// HTML/XML escaping of & < > " ' (also used for HTML text and attributes);
// ill-formed UTF-8 and C0 controls other than white space become U+FFFD.
std::string HtmlEscape(std::string_view text);

// Okabe-Ito colour-blind-safe palette (and a grey for "other").
inline constexpr const char* kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9",
                                           "#D55E00", "#F0E442", "#000000", "#999999"};
inline constexpr size_t kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);

class SvgCanvas {
 public:
  SvgCanvas(double width, double height, std::string_view aria_label);

  void Rect(double x, double y, double w, double h, std::string_view fill,
            std::string_view tooltip = {}, std::string_view extra_attributes = {});
  void Line(double x1, double y1, double x2, double y2, std::string_view stroke, double width = 1);
  void Text(double x, double y, std::string_view text, std::string_view anchor = "start",
            double size = 11, std::string_view fill = "#222");
  void Polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke,
                double width, std::string_view tooltip = {});
  void Raw(std::string_view svg_fragment);  // trusted, generated fragments only

  std::string Finish();

 private:
  std::string out_;
};

// "1 µs", "10 ms", "1 s" for tick labels.
std::string ShortDurationLabel(double us);

}  // namespace trainscope::report
