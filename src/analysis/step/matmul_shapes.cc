#include "analysis/step/matmul_shapes.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/common/dtypes.h"
#include "analysis/common/tensor_shapes.h"
#include "core/rule_file.h"

namespace trainscope::analysis {
namespace {

constexpr int64_t kBlockBytes = 512;     // one Cube load
constexpr int64_t kBlockElements = 256;  // the same for 2-byte types

bool IsMatmul(std::string_view type) {
  return AsciiLower(type).find("matmul") != std::string::npos;
}

bool Contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

// The contraction axis of A [rows_a, cols_a] and B [rows_b, cols_b], in
// the order of MatmulCost's comment; where the output's [M, N] is known
// (|out|), the reading that produces it wins (a weight gradient A^T B of two
// [tokens, hidden] operands reads as A B^T otherwise); false when no axis
// is shared.
bool Contract(int64_t rows_a, int64_t cols_a, int64_t rows_b, int64_t cols_b,
              const std::optional<std::pair<int64_t, int64_t>>& out, MatmulCost* c) {
  struct Reading {
    bool shared;
    int64_t m, k, n;
  };
  const Reading readings[] = {{cols_a == rows_b, rows_a, cols_a, cols_b},
                              {cols_a == cols_b, rows_a, cols_a, rows_b},
                              {rows_a == rows_b, cols_a, rows_a, cols_b},
                              {rows_a == cols_b, cols_a, rows_a, rows_b}};
  for (const bool by_output : {true, false}) {
    if (by_output && !out) continue;
    for (const Reading& r : readings) {
      if (!r.shared || (by_output && (r.m != out->first || r.n != out->second))) continue;
      c->m = r.m, c->k = r.k, c->n = r.n;
      return true;
    }
  }
  return false;
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

std::optional<MatmulCost> MatmulCostOf(std::string_view op_type,
                                       const std::vector<OperandShape>& shapes,
                                       const std::vector<OperandShape>* outputs) {
  if (!IsMatmulOp(op_type)) return std::nullopt;
  const std::string lower = AsciiLower(op_type);
  const std::string_view name = AtenOpName(lower);
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
  std::optional<std::pair<int64_t, int64_t>> out;
  if (outputs != nullptr && outputs->size() == 1 && outputs->front().known &&
      outputs->front().dims.size() >= 2) {
    const std::vector<int64_t>& dims = outputs->front().dims;
    out.emplace(dims[dims.size() - 2], dims.back());
  }
  if (!Contract(a[a.size() - 2], a.back(), b[b.size() - 2], b.back(), out, &c)) return std::nullopt;
  const double mn =
      static_cast<double>(c.batch) * static_cast<double>(c.m) * static_cast<double>(c.n);
  c.flops = 2 * mn * static_cast<double>(c.k) + (adds_input ? mn : 0);
  return c;
}

std::optional<double> BytesMoved(const std::vector<OperandShape>& shapes,
                                 const std::vector<std::string>& dtypes,
                                 const std::optional<MatmulCost>& matmul, bool* output_included) {
  std::optional<double> bytes = OperandBytes(shapes, dtypes);
  if (!bytes) return std::nullopt;
  *output_included = false;
  if (matmul) {
    const std::optional<int> size =
        matmul->a < dtypes.size() ? ElementBytes(dtypes[matmul->a]) : std::optional<int>();
    if (size) {
      *bytes += static_cast<double>(matmul->batch) * static_cast<double>(matmul->m) *
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
    const model::TensorDescription& tensors = events.tensors_of(i);
    if (tensors.input_shapes == StringPool::kEmpty) continue;
    auto [type, new_type] = matmul_type.try_emplace(events.op_type[i], false);
    if (new_type) type->second = IsMatmul(profile.strings.Get(events.op_type[i]));
    if (!type->second) continue;
    auto [verdict, new_shape] =
        verdicts.try_emplace({tensors.input_shapes, tensors.input_dtypes}, Verdict{});
    if (new_shape) {
      verdict->second.aligned =
          InnerAxesAligned(profile.strings.Get(tensors.input_shapes),
                           profile.strings.Get(tensors.input_dtypes), &verdict->second.axis);
    }
    const std::optional<bool> aligned = verdict->second.aligned;
    const int64_t axis = verdict->second.axis;
    if (!aligned) continue;
    seen = true;
    out.matmul_ns += events.duration_ns[i];
    if (*aligned) continue;
    ++out.kernels;
    out.total_ns += events.duration_ns[i];
    auto& entry = by_shape[{events.op_type[i], tensors.input_shapes, tensors.input_dtypes}];
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
