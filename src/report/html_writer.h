// HtmlWriter: the HTML report's text, escaped unless the code says otherwise.
//
// Kernel names, file paths, finding texts and user labels come from
// profiles and command lines, which are untrusted input. So the default is
// text: Text() escapes, and Format() escapes every argument (strings through
// HtmlEscape; numbers cannot carry markup). Markup gets in only three ways,
// each visible at the call site:
//   - the format string of Format() and the argument of Raw() are
//     HtmlLiteral, whose constructor is consteval: a string written in this
//     program's source, never one read at run time;
//   - an HtmlFragment, which only HtmlWriter::Finish() makes (a picture from
//     SvgCanvas, a section built by another writer);
//   - RawHtml{...} as a Format() argument, which takes only a fragment.
// SvgCanvas (svg.h) writes through an HtmlWriter too.
#pragma once

#include <fmt/format.h>

#include <iterator>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace trainscope::report {

// HTML/XML escaping of & < > " ' (text and attribute values); ill-formed
// UTF-8 and C0 controls other than white space become U+FFFD.
std::string HtmlEscape(std::string_view text);

// Markup written in this program's source: the consteval constructors reject
// any string that is not a compile-time constant.
class HtmlLiteral {
 public:
  consteval HtmlLiteral(const char* literal)  // NOLINT(google-explicit-constructor)
      : text_(literal) {}
  consteval HtmlLiteral(std::string_view literal)  // NOLINT(google-explicit-constructor)
      : text_(literal) {}
  constexpr std::string_view text() const { return text_; }

 private:
  std::string_view text_;
};

// Markup an HtmlWriter finished: safe to insert as it is.
class HtmlFragment {
 public:
  HtmlFragment() = default;
  const std::string& markup() const { return markup_; }
  bool empty() const { return markup_.empty(); }

 private:
  friend class HtmlWriter;
  explicit HtmlFragment(std::string markup) : markup_(std::move(markup)) {}
  std::string markup_;
};

// A fragment as a Format() argument, inserted without escaping.
struct RawHtml {
  const HtmlFragment& fragment;
};

namespace html_detail {

template <typename T>
inline constexpr bool kAlwaysFalse = false;

// Format() arguments: strings escaped, numbers as they are, fragments raw.
template <typename T>
auto Arg(T&& value) {
  using D = std::remove_cvref_t<T>;
  if constexpr (std::is_same_v<D, RawHtml>) {
    return std::string_view(value.fragment.markup());
  } else if constexpr (std::is_same_v<D, char>) {
    static_assert(kAlwaysFalse<D>, "a char is text: pass a string");
  } else if constexpr (std::is_arithmetic_v<D>) {
    return value;
  } else if constexpr (std::is_convertible_v<const D&, std::string_view>) {
    return HtmlEscape(std::string_view(value));
  } else {
    static_assert(kAlwaysFalse<D>, "HtmlWriter::Format takes strings, numbers or RawHtml");
  }
}

template <typename T>
using ArgType = decltype(Arg(std::declval<T>()));

}  // namespace html_detail

class HtmlWriter {
 public:
  // Markup from the program's source, as it is.
  void Raw(HtmlLiteral markup) { out_.append(markup.text()); }
  // Untrusted text, escaped.
  void Text(std::string_view text) { out_ += HtmlEscape(text); }
  void Append(const HtmlFragment& fragment) { out_ += fragment.markup(); }
  // fmt formatting with every argument escaped (see html_detail::Arg); the
  // format string is checked at compile time like fmt::format's.
  template <typename... Args>
  void Format(fmt::format_string<html_detail::ArgType<Args>...> format, Args&&... args) {
    fmt::format_to(std::back_inserter(out_), format, html_detail::Arg(std::forward<Args>(args))...);
  }
  void Reserve(size_t bytes) { out_.reserve(bytes); }

  HtmlFragment Finish() && { return HtmlFragment(std::move(out_)); }

 private:
  std::string out_;
};

}  // namespace trainscope::report
