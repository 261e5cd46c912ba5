#include "report/json_writer.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <system_error>

#include "core/safe_text.h"

namespace trainscope::report {
namespace {

// The bytes a JSON string holds as they are: printable ASCII but the quote,
// the backslash and <, > and & (escaped so that the JSON may sit in an HTML
// <script> block).
constexpr std::array<bool, 256> kVerbatim = [] {
  std::array<bool, 256> verbatim{};
  for (int c = 0x20; c < 0x7F; ++c) verbatim[static_cast<size_t>(c)] = true;
  for (const char c : {'"', '\\', '<', '>', '&'}) verbatim[static_cast<unsigned char>(c)] = false;
  return verbatim;
}();

}  // namespace

void AppendJsonEscaped(std::string* out, std::string_view text) {
  out->push_back('"');
  size_t bad = 0;
  for (size_t i = 0; i < text.size();) {
    // A run of bytes kept as they are, appended at once: most of a report's
    // strings are names and keys with nothing to escape (a byte at a time,
    // this was a third of writing a 1,024-rank job's JSON).
    size_t run = i;
    while (run < text.size() && kVerbatim[static_cast<unsigned char>(text[run])]) ++run;
    if (run > i) {
      out->append(text.data() + i, run - i);
      i = run;
      if (i == text.size()) break;
    }
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      // RFC 8259 requires UTF-8: profile bytes that are not (lone
      // continuation bytes, overlongs, CESU-8 surrogates, truncated
      // sequences) become U+FFFD; C1 controls and the line separators are
      // escaped like C0 (terminals act on C1; U+2028/9 end lines in old JS).
      uint32_t cp = 0;
      const size_t n = Utf8SequenceLength(text, i, &bad, &cp);
      if (n == 0) {
        out->append("\\ufffd");
        i += bad;
      } else if ((cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029) {
        out->append(fmt::format("\\u{:04x}", cp));
        i += n;
      } else {
        out->append(text.substr(i, n));
        i += n;
      }
      continue;
    }
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        // Every other byte kVerbatim leaves out: control bytes, which must
        // be escaped, and <, > and &, escaped so that the JSON is safe to
        // embed in HTML <script> blocks as well.
        out->append(fmt::format("\\u{:04x}", c));
    }
    ++i;
  }
  out->push_back('"');
}

void JsonWriter::Newline() {
  if (!pretty_) return;
  out_.push_back('\n');
  out_.append(stack_.size() * 2, ' ');
}

void JsonWriter::Flush() {
  if (!sink_ || out_.empty()) return;
  sink_(out_);
  out_.clear();
}

void JsonWriter::BeforeValue() {
  MaybeFlush();
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!stack_.empty()) {
    if (stack_.back().has_items) out_.push_back(',');
    stack_.back().has_items = true;
    Newline();
  }
}

JsonWriter& JsonWriter::BeginObject() {
  BeforeValue();
  out_.push_back('{');
  stack_.push_back({true, false});
  return *this;
}

JsonWriter& JsonWriter::EndObject() {
  bool had_items = stack_.back().has_items;
  stack_.pop_back();
  if (had_items) Newline();
  out_.push_back('}');
  return *this;
}

JsonWriter& JsonWriter::BeginArray() {
  BeforeValue();
  out_.push_back('[');
  stack_.push_back({false, false});
  return *this;
}

JsonWriter& JsonWriter::EndArray() {
  bool had_items = stack_.back().has_items;
  stack_.pop_back();
  if (had_items) Newline();
  out_.push_back(']');
  return *this;
}

JsonWriter& JsonWriter::Key(std::string_view key) {
  BeforeValue();
  AppendJsonEscaped(&out_, key);
  out_.append(pretty_ ? ": " : ":");
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::String(std::string_view value) {
  BeforeValue();
  AppendJsonEscaped(&out_, value);
  return *this;
}

JsonWriter& JsonWriter::Int(int64_t value) {
  BeforeValue();
  const fmt::format_int text(value);
  out_.append(text.data(), text.size());
  return *this;
}

JsonWriter& JsonWriter::Double(double value, int decimals) {
  BeforeValue();
  if (!std::isfinite(value)) {
    out_.append("null");
    return *this;
  }
  // std::to_chars into the stack: the same digits as printf's (and fmt's)
  // "%.*f", correctly rounded (JsonWriterTest compares them on random
  // values and on ties), without parsing a format string or making a string
  // per number; fmt's runtime format was a third of writing a report's JSON.
  // A number too long for the buffer (not one a report holds) takes fmt.
  char buffer[512];
  std::string formatted;
  std::string_view text;
  const auto [end, error] =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, decimals);
  if (error == std::errc()) {
    text = std::string_view(buffer, static_cast<size_t>(end - buffer));
  } else {
    formatted = fmt::format("{:.{}f}", value, decimals);
    text = formatted;
  }
  if (text.find('.') != std::string_view::npos) {
    while (text.back() == '0') text.remove_suffix(1);
    if (text.back() == '.') text.remove_suffix(1);
  }
  if (text == "-0") text = "0";
  out_.append(text);
  return *this;
}

JsonWriter& JsonWriter::Bool(bool value) {
  BeforeValue();
  out_.append(value ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::StringOrNull(std::string_view value) {
  return value.empty() ? Null() : String(value);
}

JsonWriter& JsonWriter::Null() {
  BeforeValue();
  out_.append("null");
  return *this;
}

}  // namespace trainscope::report
