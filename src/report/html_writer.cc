#include "report/html_writer.h"

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

}  // namespace trainscope::report
