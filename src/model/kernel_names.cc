#include "model/kernel_names.h"

#include <cxxabi.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
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

// --- Demangling -----------------------------------------------------------

// A <source-name> ("12ImplicitGemm") at |*i|: the identifier, |*i| moved
// past it; "" (and |*i| unchanged) when there is none.
std::string_view MangledSourceName(std::string_view name, size_t* i) {
  size_t j = *i;
  size_t length = 0;
  while (j < name.size() && IsDigit(name[j]) && j - *i < 5) {
    length = length * 10 + static_cast<size_t>(name[j] - '0');
    ++j;
  }
  if (j == *i || length == 0 || j + length > name.size()) return {};
  const char first = name[j];
  if (!(first == '_' || (first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z')))
    return {};
  *i = j + length;
  return name.substr(j, length);
}

// An integer template argument "Li128E" / "Lin1E" at |*i|: its value text,
// |*i| moved past it; "" when there is none there.
std::string MangledIntegerLiteral(std::string_view name, size_t* i) {
  constexpr std::string_view kIntegerTypes = "ijlmxyst";
  size_t j = *i;
  if (j + 3 >= name.size() || name[j] != 'L' ||
      kIntegerTypes.find(name[j + 1]) == std::string_view::npos)
    return "";
  j += 2;
  std::string value;
  if (name[j] == 'n') {
    value = "-";
    ++j;
  }
  const size_t digits = j;
  while (j < name.size() && IsDigit(name[j])) ++j;
  if (j == digits || j >= name.size() || name[j] != 'E') return "";
  value.append(name, digits, j - digits);
  *i = j + 1;
  return value;
}

// What a reader can get from a mangled name the runtime's demangler
// rejects: its qualified name, the first identifier of its template
// arguments and the distinct integer tuples among them, as shapes.
std::string MangledOutline(std::string_view name) {
  size_t i = 2;  // past "_Z"
  if (i < name.size() && name[i] == 'N') ++i;
  std::string base;
  while (i < name.size()) {
    if (name.compare(i, 2, "St") == 0) {
      base += base.empty() ? "std" : "::std";
      i += 2;
      continue;
    }
    const std::string_view part = MangledSourceName(name, &i);
    if (part.empty()) break;
    if (!base.empty()) base += "::";
    base += part.starts_with("_GLOBAL__N") ? std::string_view("(anonymous namespace)") : part;
  }
  if (base.empty()) return std::string(name);
  if (i >= name.size() || name[i] != 'I') return base;
  std::string lead;
  bool lead_done = false;  // the first run of names (a qualified name) read
  std::vector<std::string> shapes;
  std::string run;  // the integer tuple being read
  int run_length = 0;
  auto end_run = [&] {
    if (run_length >= 2 && shapes.size() < 8 &&
        std::find(shapes.begin(), shapes.end(), run) == shapes.end())
      shapes.push_back(run);
    run.clear();
    run_length = 0;
  };
  for (size_t k = i + 1; k < name.size();) {
    const std::string value = MangledIntegerLiteral(name, &k);
    if (!value.empty()) {
      if (run_length++ > 0) run += 'x';
      run += value;
      continue;
    }
    end_run();
    const std::string_view part = IsDigit(name[k]) ? MangledSourceName(name, &k) : "";
    if (part.empty()) {
      lead_done = lead_done || !lead.empty();
      ++k;
    } else if (!lead_done && !part.starts_with("_GLOBAL__N")) {
      lead = part;  // the last name of the first qualified name
    }
  }
  end_run();
  std::string args = lead;
  for (const std::string& shape : shapes) args += (args.empty() ? "" : ", ") + shape;
  return fmt::format("{}<{}>", base, args.empty() ? std::string("...") : args);
}

// --- Shortening for tables --------------------------------------------------

constexpr std::string_view kEllipsis = "…";

// Byte offsets of the code points of |text|, and its size at the end.
std::vector<size_t> CodePointStarts(std::string_view text) {
  std::vector<size_t> starts;
  starts.reserve(text.size() + 1);
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) starts.push_back(i);
  }
  starts.push_back(text.size());
  return starts;
}

// Columns of the name's start that say what kind of kernel it is: up to
// and including its first '<' or '(', at most |limit|.
size_t HeadColumns(std::string_view name, const std::vector<size_t>& starts, size_t limit) {
  const size_t open = name.find_first_of("<(");
  if (open == std::string_view::npos) return limit;
  const auto at = std::lower_bound(starts.begin(), starts.end(), open + 1);
  return std::min(limit, static_cast<size_t>(at - starts.begin()));
}

// |name| (of |starts|) as its first |head| code points, "…", the span of
// |middle| code points from |from| ("…" after it) when |middle| > 0, and
// its last |tail| code points.
std::string JoinParts(std::string_view name, const std::vector<size_t>& starts, size_t head,
                      size_t from, size_t middle, size_t tail) {
  const size_t total = starts.size() - 1;
  std::string out(name.substr(0, starts[head]));
  out += kEllipsis;
  if (middle > 0) {
    out.append(name.substr(starts[from], starts[from + middle] - starts[from]));
    out += kEllipsis;
  }
  out.append(name.substr(starts[total - tail]));
  return out;
}

// ElideName that shows the code point |diff| (where the name differs from
// another one that shortens alike) between the start and the tail.
std::string ElideAround(std::string_view name, size_t columns, size_t diff) {
  const std::vector<size_t> starts = CodePointStarts(name);
  const size_t total = starts.size() - 1;
  if (total <= columns) return std::string(name);
  if (columns < 12) return ElideName(name, columns);
  const size_t tail = std::max<size_t>(4, columns / 4);
  // Start the window at the beginning of the differing token.
  size_t from = std::min(diff, total);
  for (size_t back = 0; back < 8 && from > 0; ++back) {
    const char c = name[starts[from - 1]];
    if (c == '_' || c == ',' || c == '<' || c == ':' || c == ' ') break;
    --from;
  }
  if (diff + 2 <= columns - tail - 1)
    return JoinParts(name, starts, columns - tail - 1, 0, 0, tail);
  const size_t head = HeadColumns(name, starts, columns / 3);
  if (from + 4 >= total - (columns - head - 1)) {
    return JoinParts(name, starts, head, 0, 0, columns - head - 1);
  }
  const size_t middle = std::min(columns - head - tail - 2, total - tail - from);
  return JoinParts(name, starts, head, from, middle, tail);
}

// What of a name too long for its column is worth its columns: an
// abbreviation's "...>#hash" (KernelOpType) becomes "…>" (the hash tells
// names apart for a program, not for a reader; DistinctElidedNames adds it
// back where two names need it), "(anonymous namespace)::" goes, and the
// leading namespaces of the kernel's name go until it takes at most
// |head_columns| ("at::native::vectorized_elementwise_kernel<...>" ->
// "vectorized_elementwise_kernel<...>").
std::string DisplayCore(std::string_view name, size_t head_columns) {
  std::string core(name);
  const size_t hash = core.rfind("...>#");
  if (hash != std::string::npos && hash + 11 == core.size()) {
    core.resize(hash);
    core += kEllipsis;
    core += '>';
  }
  constexpr std::string_view kAnon = "(anonymous namespace)::";
  for (size_t at = core.find(kAnon); at != std::string::npos; at = core.find(kAnon, at)) {
    core.erase(at, kAnon.size());
  }
  const size_t open = core.find_first_of("<(");
  size_t base_start = 0;
  while (true) {
    const size_t scope = core.find("::", base_start);
    if (scope == std::string::npos || scope > open) break;
    if (TextColumns(std::string_view(core).substr(base_start, open - base_start)) < head_columns)
      break;
    base_start = scope + 2;
  }
  return core.substr(base_start);
}

// Code point where |a| and |b| first differ.
size_t FirstDifference(std::string_view a, std::string_view b) {
  size_t i = 0;
  size_t code_points = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) {
    if ((static_cast<unsigned char>(a[i]) & 0xC0) != 0x80) ++code_points;
    ++i;
  }
  return code_points;
}

}  // namespace

std::string DemangledKernelName(std::string_view name) {
  if (!name.starts_with("_Z")) return std::string(name);
  const std::string mangled(name);
  int status = 0;
  const std::unique_ptr<char, decltype(&std::free)> demangled(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
  if (status == 0 && demangled != nullptr) return demangled.get();
  return MangledOutline(name);
}

size_t TextColumns(std::string_view text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

std::string ElideName(std::string_view name, size_t columns) {
  if (TextColumns(name) <= columns) return std::string(name);
  if (columns < 2) return std::string(kEllipsis);
  std::string core = DisplayCore(name, columns / 2);
  const std::vector<size_t> starts = CodePointStarts(core);
  const size_t total = starts.size() - 1;
  if (total <= columns) return core;
  // The start up to the template arguments, at most half; the rest is tail.
  const size_t head = HeadColumns(core, starts, columns / 2);
  return JoinParts(core, starts, head, 0, 0, columns - 1 - head);
}

std::vector<std::string> DistinctElidedNames(const std::vector<std::string>& names,
                                             size_t columns) {
  // Equal names print alike: each distinct name is shortened once.
  std::map<std::string_view, size_t> first_of;  // name -> its first index
  std::vector<size_t> unique;                   // index of each distinct name
  for (size_t i = 0; i < names.size(); ++i) {
    if (first_of.emplace(names[i], i).second) unique.push_back(i);
  }
  std::map<std::string, std::vector<size_t>> by_text;  // default text -> distinct names
  std::vector<std::string> text(names.size());
  for (const size_t i : unique) {
    text[i] = ElideName(names[i], columns);
    by_text[text[i]].push_back(i);
  }
  std::set<std::string> taken;
  for (const auto& [shown, group] : by_text) {
    if (group.size() == 1) taken.insert(shown);
  }
  for (const auto& [shown, group] : by_text) {
    if (group.size() == 1) continue;
    // The readable forms of the group's names (DisplayCore), compared.
    std::vector<std::string> cores;
    for (const size_t i : group) cores.push_back(DisplayCore(names[i], columns / 2));
    for (size_t g = 0; g < group.size(); ++g) {
      const size_t i = group[g];
      // Where the name first differs from the others of its group, earliest first.
      std::vector<size_t> diffs;
      for (size_t h = 0; h < group.size(); ++h) {
        if (h != g) diffs.push_back(FirstDifference(cores[g], cores[h]));
      }
      std::sort(diffs.begin(), diffs.end());
      bool placed = false;
      for (const size_t diff : diffs) {
        std::string candidate = ElideAround(cores[g], columns, diff);
        if (taken.insert(candidate).second) {
          text[i] = std::move(candidate);
          placed = true;
          break;
        }
      }
      if (!placed && columns > 8) {
        const std::string hash = HashSuffix(names[i]);
        text[i] = ElideName(names[i], columns - hash.size()) + hash;
        taken.insert(text[i]);
      }
    }
  }
  std::vector<std::string> out(names.size());
  for (size_t i = 0; i < names.size(); ++i) out[i] = text[first_of[names[i]]];
  return out;
}

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
  if (name.starts_with("_Z")) {
    const std::string demangled = DemangledKernelName(name);
    if (!demangled.starts_with("_Z")) return KernelOpType(demangled);
  }
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
