#include "analysis/step/matmul_shapes.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/common/dtypes.h"
#include "core/rule_file.h"

namespace trainscope::analysis {
namespace {

constexpr int64_t kBlockBytes = 512;     // one Cube load
constexpr int64_t kBlockElements = 256;  // the same for 2-byte types

bool IsMatmul(std::string_view type) {
  return AsciiLower(type).find("matmul") != std::string::npos;
}

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

bool Contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

// "aten::addmm" -> "addmm"; CANN names stay whole.
std::string_view AtenName(std::string_view lower) {
  const size_t colons = lower.rfind("::");
  return colons == std::string_view::npos ? lower : lower.substr(colons + 2);
}

// The contraction axis of A [rows_a, cols_a] and B [rows_b, cols_b], in
// the order of MatmulCost's comment; false when none is shared.
bool Contract(int64_t rows_a, int64_t cols_a, int64_t rows_b, int64_t cols_b, MatmulCost* c) {
  if (cols_a == rows_b) {
    c->m = rows_a, c->k = cols_a, c->n = cols_b;
  } else if (cols_a == cols_b) {
    c->m = rows_a, c->k = cols_a, c->n = rows_b;
  } else if (rows_a == rows_b) {
    c->m = cols_a, c->k = rows_a, c->n = cols_b;
  } else if (rows_a == cols_b) {
    c->m = cols_a, c->k = rows_a, c->n = rows_b;
  } else {
    return false;
  }
  return true;
}

// The product of the broadcast leading axes of |a| and |b| (all but the
// last two); nullopt when two axes differ and neither is 1.
std::optional<int64_t> BroadcastBatch(const std::vector<int64_t>& a,
                                      const std::vector<int64_t>& b) {
  const size_t lead_a = a.size() - 2, lead_b = b.size() - 2;
  const size_t lead = std::max(lead_a, lead_b);
  int64_t batch = 1;
  for (size_t i = 0; i < lead; ++i) {
    const int64_t x = i < lead - lead_a ? 1 : a[i - (lead - lead_a)];
    const int64_t y = i < lead - lead_b ? 1 : b[i - (lead - lead_b)];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    batch *= std::max(x, y);
  }
  return batch;
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

bool IsMatmulOp(std::string_view op_type) {
  const std::string lower = AsciiLower(op_type);
  if (Contains(lower, "matmul")) return true;
  const std::string_view name = AtenName(lower);
  for (std::string_view aten :
       {"mm", "addmm", "bmm", "baddbmm", "linear", "_scaled_mm", "grouped_mm", "_grouped_mm"}) {
    if (name == aten) return true;
  }
  return false;
}

std::optional<MatmulCost> MatmulCostOf(std::string_view op_type,
                                       const std::vector<OperandShape>& shapes) {
  if (!IsMatmulOp(op_type)) return std::nullopt;
  const std::string lower = AsciiLower(op_type);
  const std::string_view name = AtenName(lower);
  MatmulCost c;
  const bool adds_input = name == "addmm" || name == "baddbmm";
  if (adds_input) c.a = 1, c.b = 2;
  if (shapes.size() <= c.b || !shapes[c.a].known || !shapes[c.b].known) return std::nullopt;
  const std::vector<int64_t>& a = shapes[c.a].dims;
  const std::vector<int64_t>& b = shapes[c.b].dims;
  if (a.size() < 2 || b.size() < 2) return std::nullopt;
  const bool grouped = Contains(lower, "grouped");
  if (grouped) {
    if (a.size() != 2 || b.size() != 3) return std::nullopt;
  } else {
    const std::optional<int64_t> batch = BroadcastBatch(a, b);
    if (!batch) return std::nullopt;
    c.batch = *batch;
  }
  if (!Contract(a[a.size() - 2], a.back(), b[b.size() - 2], b.back(), &c)) return std::nullopt;
  const double mn =
      static_cast<double>(c.batch) * static_cast<double>(c.m) * static_cast<double>(c.n);
  c.flops = 2 * mn * static_cast<double>(c.k) + (adds_input ? mn : 0);
  return c;
}

std::optional<double> BytesMoved(const std::vector<OperandShape>& shapes,
                                 const std::vector<std::string>& dtypes,
                                 const std::optional<MatmulCost>& matmul, bool* output_included) {
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
  *output_included = false;
  if (matmul) {
    const std::optional<int> size =
        matmul->a < dtypes.size() ? ElementBytes(dtypes[matmul->a]) : std::optional<int>();
    if (size) {
      bytes += static_cast<double>(matmul->batch) * static_cast<double>(matmul->m) *
               static_cast<double>(matmul->n) * *size;
      *output_included = true;
    }
  }
  return bytes;
}

std::optional<bool> InnerAxesAligned(std::string_view shapes, std::string_view dtypes,
                                     int64_t* unaligned_axis) {
  if (shapes.empty()) return std::nullopt;
  const std::vector<std::string_view> types = SplitOn(dtypes, ';');
  bool any = false;
  const std::vector<std::string_view> inputs = SplitOn(shapes, ';');
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string_view shape = inputs[i];
    if (shape.empty()) break;
    const size_t comma = shape.rfind(',');
    const std::string_view last = comma == std::string_view::npos ? shape : shape.substr(comma + 1);
    int64_t axis = 0;
    const auto [ptr, ec] = std::from_chars(last.data(), last.data() + last.size(), axis);
    if (ec != std::errc() || ptr != last.data() + last.size() || axis <= 0) return std::nullopt;
    any = true;
    const std::optional<int> bytes =
        i < types.size() ? ElementBytes(types[i]) : std::optional<int>();
    const bool aligned = bytes ? (axis * *bytes) % kBlockBytes == 0 : axis % kBlockElements == 0;
    if (!aligned) {
      if (unaligned_axis != nullptr) *unaligned_axis = axis;
      return false;
    }
  }
  if (!any) return std::nullopt;
  return true;
}

std::optional<UnalignedMatmuls> FindUnalignedMatmuls(const model::RankProfile& profile,
                                                     int32_t step) {
  const model::DeviceEvents& events = profile.device_events;
  UnalignedMatmuls out;
  // Per (type, shapes, dtypes): the unaligned kernels' time, for the top one.
  std::map<std::tuple<StringId, StringId, StringId>, std::pair<int64_t, int64_t>> by_shape;
  bool seen = false;
  // Types and shapes repeat across a step's kernels: each is judged once.
  std::unordered_map<StringId, bool> matmul_type;
  struct Verdict {
    std::optional<bool> aligned;
    int64_t axis = 0;
  };
  std::map<std::pair<StringId, StringId>, Verdict> verdicts;
  for (uint32_t i : events.RowsOf(step)) {
    if (events.input_shapes[i] == StringPool::kEmpty) continue;
    auto [type, new_type] = matmul_type.try_emplace(events.op_type[i], false);
    if (new_type) type->second = IsMatmul(profile.strings.Get(events.op_type[i]));
    if (!type->second) continue;
    auto [verdict, new_shape] =
        verdicts.try_emplace({events.input_shapes[i], events.input_dtypes[i]}, Verdict{});
    if (new_shape) {
      verdict->second.aligned =
          InnerAxesAligned(profile.strings.Get(events.input_shapes[i]),
                           profile.strings.Get(events.input_dtypes[i]), &verdict->second.axis);
    }
    const std::optional<bool> aligned = verdict->second.aligned;
    const int64_t axis = verdict->second.axis;
    if (!aligned) continue;
    seen = true;
    out.matmul_ns += events.duration_ns[i];
    if (*aligned) continue;
    ++out.kernels;
    out.total_ns += events.duration_ns[i];
    auto& entry = by_shape[{events.op_type[i], events.input_shapes[i], events.input_dtypes[i]}];
    entry.first += events.duration_ns[i];
    entry.second = axis;
  }
  if (!seen) return std::nullopt;
  const auto top = std::max_element(
      by_shape.begin(), by_shape.end(),
      [](const auto& a, const auto& b) { return a.second.first < b.second.first; });
  if (top != by_shape.end()) {
    out.top_type = std::string(profile.strings.Get(std::get<0>(top->first)));
    out.top_shapes = std::string(profile.strings.Get(std::get<1>(top->first)));
    out.top_dtypes = std::string(profile.strings.Get(std::get<2>(top->first)));
    out.top_axis = top->second.second;
  }
  return out;
}

}  // namespace trainscope::analysis
