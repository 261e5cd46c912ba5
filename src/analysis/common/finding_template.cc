#include "analysis/common/finding_template.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>

namespace trainscope::analysis {
namespace {

// One piece of a template: literal text, a placeholder, or the start/end of
// an optional part.
struct Piece {
  enum Kind { kText, kPlaceholder, kOpen, kClose } kind = kText;
  std::string_view text;  // kText
  Placeholder placeholder;
};

bool KnownFormat(std::string_view f) {
  return f.empty() || f == "int" || f == "step" || f == "f0" || f == "f1" || f == "f2" ||
         f == "f3" || f == "pct0" || f == "pct1" || f == "pct2";
}

Status Split(std::string_view tmpl, std::vector<Piece>* pieces) {
  bool in_optional = false;
  size_t i = 0, literal = 0;
  auto flush = [&](size_t end) {
    if (end > literal) pieces->push_back(Piece{Piece::kText, tmpl.substr(literal, end - literal)});
  };
  while (i < tmpl.size()) {
    const std::string_view rest = tmpl.substr(i);
    if (rest.substr(0, 2) == "[[" || rest.substr(0, 2) == "]]") {
      const bool open = rest[0] == '[';
      if (open == in_optional) {
        return InvalidInput(fmt::format(
            "column {}: {}", i + 1, open ? "'[[' inside an optional part" : "']]' without '[['"));
      }
      flush(i);
      pieces->push_back(Piece{open ? Piece::kOpen : Piece::kClose, {}});
      in_optional = open;
      i += 2;
      literal = i;
      continue;
    }
    if (rest[0] == '}') return InvalidInput(fmt::format("column {}: '}}' without '{{'", i + 1));
    if (rest[0] != '{') {
      ++i;
      continue;
    }
    const size_t close = rest.find('}');
    if (close == std::string_view::npos)
      return InvalidInput(fmt::format("column {}: '{{' without '}}'", i + 1));
    const std::string_view inner = rest.substr(1, close - 1);
    const size_t colon = inner.find(':');
    Piece p{Piece::kPlaceholder, {}};
    p.placeholder.name = std::string(inner.substr(0, colon));
    if (colon != std::string_view::npos)
      p.placeholder.format = std::string(inner.substr(colon + 1));
    if (p.placeholder.name.empty() ||
        p.placeholder.name.find_first_of("{[ ") != std::string::npos) {
      return InvalidInput(fmt::format("column {}: bad placeholder '{{{}}}'", i + 1, inner));
    }
    if (!KnownFormat(p.placeholder.format)) {
      return InvalidInput(fmt::format(
          "column {}: unknown format '{}' in '{{{}}}' (use f0-f3, pct0-pct2, int or none)", i + 1,
          p.placeholder.format, inner));
    }
    flush(i);
    pieces->push_back(std::move(p));
    i += close + 1;
    literal = i;
  }
  if (in_optional) return InvalidInput("'[[' without ']]'");
  flush(tmpl.size());
  return Status::Ok();
}

bool Format(const Placeholder& p, const TemplateValue& v, std::string* out) {
  if (v.is_text) {
    if (!p.format.empty()) return false;
    *out += v.text;
    return true;
  }
  const std::string& f = p.format;
  if (f.empty()) {
    *out += fmt::format("{}", v.number);
  } else if (f == "step") {  // a step number; negative: no steps (kNoStep)
    *out += v.number < 0 ? std::string("the whole capture")
                         : fmt::format("step {}", static_cast<int64_t>(std::llround(v.number)));
  } else if (f == "int") {
    *out += fmt::format("{}", static_cast<int64_t>(std::llround(v.number)));
  } else if (f[0] == 'f') {
    *out += fmt::format("{:.{}f}", v.number, f[1] - '0');
  } else {  // pctN
    *out += fmt::format("{:.{}f}", v.number * 100, f[3] - '0');
  }
  return true;
}

}  // namespace

Status CheckTemplate(std::string_view tmpl, std::vector<Placeholder>* out) {
  std::vector<Piece> pieces;
  TS_RETURN_IF_ERROR(Split(tmpl, &pieces));
  for (const Piece& p : pieces) {
    if (p.kind == Piece::kPlaceholder) out->push_back(p.placeholder);
  }
  return Status::Ok();
}

std::string RenderTemplate(std::string_view tmpl, const TemplateLookup& lookup,
                           std::vector<std::string>* missing) {
  std::vector<Piece> pieces;
  if (!Split(tmpl, &pieces).ok()) return std::string(tmpl);
  std::string out, optional;
  bool in_optional = false, optional_ok = true;
  for (const Piece& p : pieces) {
    std::string& dest = in_optional ? optional : out;
    switch (p.kind) {
      case Piece::kText:
        dest += p.text;
        break;
      case Piece::kOpen:
        in_optional = true;
        optional_ok = true;
        optional.clear();
        break;
      case Piece::kClose:
        in_optional = false;
        if (optional_ok) out += optional;
        break;
      case Piece::kPlaceholder: {
        TemplateValue v;
        if (lookup(p.placeholder.name, &v) && Format(p.placeholder, v, &dest)) break;
        if (in_optional) {
          optional_ok = false;
          break;
        }
        dest += "{" + p.placeholder.name +
                (p.placeholder.format.empty() ? "" : ":" + p.placeholder.format) + "}";
        if (missing != nullptr) missing->push_back(p.placeholder.name);
        break;
      }
    }
  }
  return out;
}

}  // namespace trainscope::analysis
