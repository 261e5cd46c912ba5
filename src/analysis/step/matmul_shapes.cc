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

}  // namespace

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
