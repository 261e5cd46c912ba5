#include "report/svg.h"

#include <fmt/format.h>

#include <cmath>

#include "core/safe_text.h"

namespace trainscope::report {

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t bad = 0;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    const unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x80) {
      // Ill-formed UTF-8 would make the page's encoding a guess: U+FFFD.
      const size_t n = Utf8SequenceLength(text, i, &bad);
      if (n == 0) {
        out += kReplacementChar;
        i += bad;
      } else {
        out.append(text.substr(i, n));
        i += n;
      }
      continue;
    }
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        // C0 controls other than white space are not allowed in HTML/XML
        // text (NUL ends some parsers' strings).
        if ((u < 0x20 && c != '\t' && c != '\n' && c != '\r') || u == 0x7F) {
          out += kReplacementChar;
        } else {
          out += c;
        }
    }
    ++i;
  }
  return out;
}

SvgCanvas::SvgCanvas(double width, double height, std::string_view aria_label) {
  out_ = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {:.0f} {:.0f}\" width=\"{:.0f}\" "
      "height=\"{:.0f}\" role=\"img\" aria-label=\"{}\" font-family=\"sans-serif\">",
      width, height, width, height, HtmlEscape(aria_label));
}

void SvgCanvas::Rect(double x, double y, double w, double h, std::string_view fill,
                     std::string_view tooltip, std::string_view extra_attributes) {
  if (w <= 0 || h <= 0) return;
  out_ += fmt::format(
      "<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\"{}{}", x, y, w,
      h, HtmlEscape(fill), extra_attributes.empty() ? "" : " ", extra_attributes);
  if (tooltip.empty()) {
    out_ += "/>";
  } else {
    out_ += fmt::format("><title>{}</title></rect>", HtmlEscape(tooltip));
  }
}

void SvgCanvas::Line(double x1, double y1, double x2, double y2, std::string_view stroke,
                     double width) {
  out_ += fmt::format(
      "<line x1=\"{:.2f}\" y1=\"{:.2f}\" x2=\"{:.2f}\" y2=\"{:.2f}\" stroke=\"{}\" "
      "stroke-width=\"{}\"/>",
      x1, y1, x2, y2, HtmlEscape(stroke), width);
}

void SvgCanvas::Text(double x, double y, std::string_view text, std::string_view anchor,
                     double size, std::string_view fill) {
  out_ += fmt::format(
      "<text x=\"{:.2f}\" y=\"{:.2f}\" text-anchor=\"{}\" font-size=\"{}\" fill=\"{}\">{}</text>",
      x, y, HtmlEscape(anchor), size, HtmlEscape(fill), HtmlEscape(text));
}

void SvgCanvas::Polyline(const std::vector<std::pair<double, double>>& points,
                         std::string_view stroke, double width, std::string_view tooltip) {
  if (points.empty()) return;
  out_ += "<polyline fill=\"none\" stroke=\"" + HtmlEscape(stroke) + "\" stroke-width=\"" +
          fmt::format("{}", width) + "\" points=\"";
  for (const auto& [x, y] : points) out_ += fmt::format("{:.1f},{:.1f} ", x, y);
  out_ += "\"";
  if (tooltip.empty()) {
    out_ += "/>";
  } else {
    out_ += fmt::format("><title>{}</title></polyline>", HtmlEscape(tooltip));
  }
}

void SvgCanvas::Raw(std::string_view svg_fragment) { out_ += svg_fragment; }

std::string SvgCanvas::Finish() { return out_ + "</svg>"; }

std::string ShortDurationLabel(double us) {
  if (us < 1000) return fmt::format("{:g} µs", us);
  if (us < 1e6) return fmt::format("{:g} ms", us / 1000);
  return fmt::format("{:g} s", us / 1e6);
}

}  // namespace trainscope::report
