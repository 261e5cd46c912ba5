// SvgCanvas: builds one inline <svg> element as text.
//
// Every text that reaches the SVG (labels, tooltips, colours) is escaped:
// kernel names come from profiles, which are untrusted input. It writes
// through an HtmlWriter (html_writer.h): markup only from the program's own
// literals. Tooltips use SVG <title> children, which browsers show on hover
// without any script.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/html_writer.h"

namespace trainscope::report {

// Okabe-Ito colour-blind-safe palette (and a grey for "other").
inline constexpr const char* kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9",
                                           "#D55E00", "#F0E442", "#000000", "#999999"};
inline constexpr size_t kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);

class SvgCanvas {
 public:
  SvgCanvas(double width, double height, std::string_view aria_label);

  void Rect(double x, double y, double w, double h, std::string_view fill,
            std::string_view tooltip = {}, HtmlLiteral extra_attributes = "");
  void Line(double x1, double y1, double x2, double y2, std::string_view stroke, double width = 1);
  void Text(double x, double y, std::string_view text, std::string_view anchor = "start",
            double size = 11, std::string_view fill = "#222");
  void Polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke,
                double width, std::string_view tooltip = {});
  // Other elements: markup from a literal, every argument escaped.
  template <typename... Args>
  void Format(fmt::format_string<html_detail::ArgType<Args>...> format, Args&&... args) {
    out_.Format(format, std::forward<Args>(args)...);
  }

  HtmlFragment Finish() &&;

 private:
  HtmlWriter out_;
};

// "1 µs", "10 ms", "1 s" for tick labels.
std::string ShortDurationLabel(double us);

// The ticks of a linear time axis over [lo_us, hi_us]: multiples of the
// smallest step of 1, 2 or 5 x 10^k µs that gives at most |max_ticks| ticks
// in the range, all labelled in one unit (the one of the largest value
// shown: ns, µs, ms or s) with the decimals the step needs ("0 ms", "20 ms",
// ...; "499.98 ms", "500.00 ms", ...). An empty range gives one tick at lo.
struct TimeTicks {
  std::vector<double> values_us;
  std::vector<std::string> labels;
  std::string unit;
  double step_us = 0;
};
TimeTicks TimeAxisTicks(double lo_us, double hi_us, int max_ticks);

// The width in px |text| takes in a sans-serif font of |font_size| px, from
// its characters (no font metrics at render time): an upper estimate, to
// reserve a chart margin that no label overflows.
double TextWidth(std::string_view text, double font_size);

}  // namespace trainscope::report
