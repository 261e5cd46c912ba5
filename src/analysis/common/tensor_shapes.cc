#include "analysis/common/tensor_shapes.h"

#include <charconv>

#include "analysis/common/dtypes.h"
#include "core/rule_file.h"

namespace trainscope::analysis {
namespace {

std::string_view Trim(std::string_view s) {
  constexpr std::string_view kSpace = " \t\r\n\"";
  const size_t first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kSpace) - first + 1);
}

// "4096,2048" (or "4096, 2048" inside brackets): every axis a positive
// number, else unknown.
OperandShape ParseAxes(std::string_view text) {
  OperandShape out;
  text = Trim(text);
  out.known = true;
  if (text.empty()) return out;
  for (std::string_view axis : SplitOn(text, ',')) {
    axis = Trim(axis);
    int64_t value = 0;
    const auto [ptr, ec] = std::from_chars(axis.data(), axis.data() + axis.size(), value);
    if (ec != std::errc() || ptr != axis.data() + axis.size() || value < 0) {
      out.known = false;
      out.dims.clear();
      return out;
    }
    out.dims.push_back(value);
  }
  return out;
}

// The top-level elements of a JSON array "[a, [b, c], ...]" as text.
std::optional<std::vector<std::string_view>> JsonElements(std::string_view text) {
  text = Trim(text);
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return std::nullopt;
  text = text.substr(1, text.size() - 2);
  std::vector<std::string_view> out;
  int depth = 0;
  bool in_string = false;
  size_t begin = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '[')
      ++depth;
    else if (c == ']')
      --depth;
    else if (c == ',' && depth == 0) {
      out.push_back(Trim(text.substr(begin, i - begin)));
      begin = i + 1;
    }
    if (depth < 0) return std::nullopt;
  }
  if (depth != 0 || in_string) return std::nullopt;
  if (!Trim(text.substr(begin)).empty() || !out.empty()) out.push_back(Trim(text.substr(begin)));
  return out;
}

}  // namespace

std::optional<std::vector<OperandShape>> ParseShapes(std::string_view text) {
  text = Trim(text);
  if (text.empty()) return std::nullopt;
  std::vector<OperandShape> out;
  if (text.front() == '[') {
    const std::optional<std::vector<std::string_view>> elements = JsonElements(text);
    if (!elements) return std::nullopt;
    for (std::string_view element : *elements) {
      // A tensor's dims "[4096, 2048]"; a nested list (a tensor list) or
      // anything else is an operand of unknown shape.
      if (element.size() >= 2 && element.front() == '[' && element.back() == ']' &&
          element.find('[', 1) == std::string_view::npos) {
        out.push_back(ParseAxes(element.substr(1, element.size() - 2)));
      } else {
        out.push_back(OperandShape{});
      }
    }
    return out;
  }
  for (std::string_view operand : SplitOn(text, ';')) out.push_back(ParseAxes(operand));
  return out;
}

std::vector<std::string> ParseDtypes(std::string_view text) {
  text = Trim(text);
  std::vector<std::string> out;
  if (text.empty()) return out;
  if (text.front() == '[') {
    const std::optional<std::vector<std::string_view>> elements = JsonElements(text);
    if (!elements) return out;
    for (std::string_view element : *elements) out.emplace_back(Trim(element));
    return out;
  }
  for (std::string_view one : SplitOn(text, ';')) out.emplace_back(Trim(one));
  return out;
}

std::string_view AtenOpName(std::string_view lower) {
  const size_t colons = lower.rfind("::");
  return colons == std::string_view::npos ? lower : lower.substr(colons + 2);
}

bool IsMatmulOp(std::string_view op_type) {
  const std::string lower = AsciiLower(op_type);
  if (lower.find("matmul") != std::string::npos) return true;
  const std::string_view name = AtenOpName(lower);
  for (std::string_view aten :
       {"mm", "addmm", "bmm", "baddbmm", "linear", "_scaled_mm", "grouped_mm", "_grouped_mm"}) {
    if (name == aten) return true;
  }
  return false;
}

std::optional<double> OperandBytes(const std::vector<OperandShape>& shapes,
                                   const std::vector<std::string>& dtypes) {
  double bytes = 0;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (!shapes[i].known) return std::nullopt;
    if (shapes[i].dims.empty()) continue;
    double elements = 1;
    for (int64_t d : shapes[i].dims) elements *= static_cast<double>(d);
    if (elements == 0) continue;
    const std::optional<int> size =
        i < dtypes.size() ? ElementBytes(dtypes[i]) : std::optional<int>();
    if (!size) return std::nullopt;
    bytes += elements * *size;
  }
  return bytes;
}

std::optional<double> TensorListBytes(std::string_view shapes, std::string_view dtypes) {
  const std::optional<std::vector<OperandShape>> parsed = ParseShapes(shapes);
  if (!parsed) return std::nullopt;
  return OperandBytes(*parsed, ParseDtypes(dtypes));
}

}  // namespace trainscope::analysis
