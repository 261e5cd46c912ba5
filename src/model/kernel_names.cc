#include "model/kernel_names.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace trainscope::model {
namespace {

bool IsIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// FNV-1a, 64 bit: stable across runs and platforms (std::hash is neither).
uint64_t NameHash(std::string_view name) {
  uint64_t h = 14695981039346656037ull;
  for (const char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

std::string HashSuffix(std::string_view name) {
  return fmt::format("#{:06x}", NameHash(name) & 0xFFFFFF);
}

// "a::b::C<x::y, 2>" -> "C<y,2>": qualifiers and spaces carry no identity a
// reader needs in a table; the full name stays in the JSON kernel lists.
std::string CompactArgs(std::string_view args) {
  std::string out;
  out.reserve(args.size());
  constexpr std::string_view kAnon = "(anonymous namespace)::";
  size_t word_start = 0;  // in |out|: where the current identifier began
  for (size_t i = 0; i < args.size(); ++i) {
    const char c = args[i];
    if (c == '(' && args.substr(i, kAnon.size()) == kAnon) {
      i += kAnon.size() - 1;
      word_start = out.size();
      continue;
    }
    if (c == ':' && i + 1 < args.size() && args[i + 1] == ':') {
      out.resize(word_start);  // drop the qualifier just written
      ++i;
      continue;
    }
    if (c == ' ') {
      word_start = out.size();
      continue;
    }
    if (!IsIdentChar(c)) {
      out += c;
      word_start = out.size();
      continue;
    }
    out += c;
  }
  return out;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// A CuTe constant "C<128>" at |i|: the end of its digits (at the '>'), or
// npos when |text| has none there.
size_t CuteConstantEnd(std::string_view text, size_t i) {
  if (text.compare(i, 2, "C<") != 0) return std::string_view::npos;
  size_t j = i + 2;
  while (j < text.size() && IsDigit(text[j])) ++j;
  return j > i + 2 && j < text.size() && text[j] == '>' ? j : std::string_view::npos;
}

// "<n,n[,n...]>" of plain numbers (constants, "_n" or "C<n>", folded) at the
// '<' at |open|: "nxn[xn...]" and the index of the closing '>' in |close|;
// "" when the arguments are not two or more numbers.
std::string ShapeArguments(std::string_view text, size_t open, size_t* close) {
  std::string shape;
  size_t j = open + 1;
  int numbers = 0;
  while (j < text.size() && text[j] != '>') {
    size_t k = j;
    while (k < text.size() && text[k] == '_') ++k;
    if (text.compare(k, 2, "C<") == 0) k += 2;
    const size_t digits = k;
    while (k < text.size() && IsDigit(text[k])) ++k;
    if (k == digits) break;
    if (!shape.empty()) shape += 'x';
    shape.append(text, digits, k - digits);
    ++numbers;
    if (k < text.size() && text[k] == '>' && text.compare(j, 2, "C<") == 0) ++k;
    if (k < text.size() && text[k] == ',') ++k;
    j = k;
  }
  if (numbers < 2 || j >= text.size() || text[j] != '>') return "";
  *close = j;
  return shape;
}

// Folds the shapes CUTLASS/CuTe spell as templates into "128x128x64":
// "C<128>" / "_128" constants become numbers, then "Ident<n,n[,n...]>" of
// numbers only becomes "nxn[xn...]". Tile, warp and cluster shapes are what
// tells two instances of one GEMM template apart.
std::string FoldShapes(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t ident_start = 0;  // in |out|: where the identifier being copied began
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool word_start = i == 0 || !IsIdentChar(text[i - 1]);
    if (word_start) ident_start = out.size();
    const size_t constant_end = word_start ? CuteConstantEnd(text, i) : std::string_view::npos;
    if (constant_end != std::string_view::npos) {  // CuTe constant C<128>
      out.append(text, i + 2, constant_end - i - 2);
      i = constant_end;
      continue;
    }
    if (word_start && c == '_' && i + 1 < text.size() && IsDigit(text[i + 1])) continue;  // _128
    size_t close = 0;
    const std::string shape = c == '<' ? ShapeArguments(text, i, &close) : std::string();
    if (!shape.empty()) {  // "Ident<n,n[,n...]>" -> "nxn[xn...]"
      out.resize(ident_start);
      out += shape;
      i = close;
      continue;
    }
    out += c;
  }
  return out;
}

// Long arguments: their leading identifier and the distinct shapes found in
// them ("GemmUniversal,1x1x1,128x128x64"), else their first part cut at a ','
// or '<' (not inside a UTF-8 sequence).
std::string Abbreviate(std::string_view args, size_t max) {
  const std::string_view lead = args.substr(0, args.find_first_of(",<"));
  std::string out(lead);
  std::vector<std::string_view> kept_shapes;
  bool any_shape = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!IsDigit(args[i]) || (i > 0 && IsIdentChar(args[i - 1]))) continue;
    size_t j = i;
    while (j < args.size() && (IsDigit(args[j]) || args[j] == 'x')) ++j;
    const std::string_view token = args.substr(i, j - i);
    const bool kept = token == lead ||
                      std::find(kept_shapes.begin(), kept_shapes.end(), token) != kept_shapes.end();
    const bool shape = token.find('x') != std::string_view::npos && IsDigit(token.back()) &&
                       (j == args.size() || !IsIdentChar(args[j]));
    any_shape = any_shape || shape;
    if (shape && !kept && out.size() + token.size() < max) {
      out += ',';
      out += token;
      kept_shapes.push_back(token);
    }
    i = j;
  }
  if (any_shape) return out;
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(args[cut]) & 0xC0) == 0x80) --cut;
  const size_t boundary = args.substr(0, cut).find_last_of(",<");
  if (boundary != std::string_view::npos && boundary > max / 2) cut = boundary;
  return std::string(args.substr(0, cut));
}

// Drops a leading return type: "void " and, from demangled names that
// spell it, a templated one ("std::enable_if<(8)>(0), void>::type
// vllm::fused_add_rms_norm_kernel<...>(...)" -> "vllm::fused_add_rms_norm_kernel<...>(...)").
// A split is made only at a space outside template arguments and parentheses
// whose prefix is a template, so "Memcpy DtoD (Device -> Device)" stays whole.
// Inside template arguments '<' and '>' within parentheses are operators.
std::string_view WithoutReturnType(std::string_view name) {
  if (name.starts_with("void ")) name.remove_prefix(5);
  constexpr std::string_view kAnon = "(anonymous namespace)";
  int angle = 0, paren = 0;
  size_t split = std::string_view::npos;
  bool template_seen = false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '(' && name.substr(i, kAnon.size()) == kAnon) {
      i += kAnon.size() - 1;
      continue;
    }
    if (c == '(') {
      if (angle == 0 && paren == 0) break;  // the parameter list
      ++paren;
    } else if (c == ')') {
      paren = std::max(0, paren - 1);
    } else if (paren == 0 && c == '<') {
      ++angle;
      template_seen = true;
    } else if (paren == 0 && c == '>') {
      angle = std::max(0, angle - 1);
    } else if (c == ' ' && angle == 0 && paren == 0 && template_seen) {
      split = i;
    }
  }
  if (split == std::string_view::npos) return name;
  std::string_view rest = name.substr(split + 1);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  return rest.empty() ? name : rest;
}

}  // namespace

std::string_view ShortKernelName(std::string_view name) {
  name = WithoutReturnType(name);
  constexpr std::string_view kAnon = "(anonymous namespace)";
  size_t i = 0;
  while (i < name.size()) {
    if (name[i] == '(' && name.substr(i, kAnon.size()) == kAnon) {
      i += kAnon.size();
      continue;
    }
    if (name[i] == '<' || name[i] == '(') break;
    ++i;
  }
  std::string_view out = name.substr(0, i);
  while (!out.empty() && out.back() == ' ') out.remove_suffix(1);
  return out.empty() ? name : out;
}

std::string_view NormalisedOpType(std::string_view op_type) {
  std::string_view base = ShortKernelName(op_type);
  const size_t hash = base.find('#');
  if (hash != std::string_view::npos && hash > 0) base = base.substr(0, hash);
  return base;
}

std::string KernelOpType(std::string_view name) {
  name = WithoutReturnType(name);
  const std::string_view base = ShortKernelName(name);
  // The template arguments follow the base directly (after optional spaces).
  size_t open = static_cast<size_t>(base.data() + base.size() - name.data());
  while (open < name.size() && name[open] == ' ') ++open;
  if (base.size() == name.size() || open >= name.size() || name[open] != '<') {
    return std::string(base);
  }
  int depth = 0, paren = 0;
  size_t close = open;
  for (; close < name.size(); ++close) {
    const char c = name[close];
    if (c == '(') ++paren;
    if (c == ')') paren = std::max(0, paren - 1);
    if (paren > 0) continue;  // '<' and '>' inside parentheses are operators
    if (c == '<') ++depth;
    if (c == '>' && --depth == 0) break;
  }
  if (close >= name.size()) return std::string(base);  // unbalanced: no arguments to keep
  const std::string args = FoldShapes(CompactArgs(name.substr(open + 1, close - open - 1)));
  if (args.size() <= kMaxKernelArgsChars) return fmt::format("{}<{}>", base, args);
  return fmt::format("{}<{}...>{}", base, Abbreviate(args, kMaxKernelArgsChars), HashSuffix(name));
}

std::string WithNameHash(std::string_view op_type, std::string_view name) {
  return std::string(op_type) + HashSuffix(name);
}

}  // namespace trainscope::model
