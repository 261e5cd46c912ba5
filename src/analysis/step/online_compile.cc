#include "analysis/step/online_compile.h"

#include <algorithm>

namespace trainscope::analysis {

std::optional<DynamicShapeStats> ComputeDynamicShapes(const model::RankProfile& profile,
                                                      int32_t step) {
  const model::DeviceEvents& events = profile.device_events;
  DynamicShapeStats out;
  for (uint32_t i : events.RowsOf(step)) {
    if (events.kind[i] != model::ActivityKind::kCompute) continue;
    if (events.op_state[i] == model::OpState::kUnknown) continue;
    ++out.kernels;
    out.kernel_ns += events.duration_ns[i];
    if (events.op_state[i] == model::OpState::kDynamic) {
      ++out.dynamic_kernels;
      out.dynamic_ns += events.duration_ns[i];
    }
  }
  if (out.kernels == 0) return std::nullopt;
  return out;
}

CompileApi ClassifyCompileApi(std::string_view api) {
  if (api.substr(0, 12) == "aclopCompile") return CompileApi::kOuter;
  if (api.find("Compile") != std::string_view::npos ||
      api.find("compile") != std::string_view::npos) {
    return CompileApi::kInner;
  }
  return CompileApi::kNone;
}

namespace {

// Captured steps: the device events' steps, else step_trace_time.csv's
// rows, else the capture is one step.
int64_t CapturedSteps(const model::RankProfile& profile) {
  const auto steps = static_cast<int64_t>(profile.device_events.Steps().size());
  if (steps > 0) return steps;
  if (!profile.step_trace.empty()) return static_cast<int64_t>(profile.step_trace.size());
  return 1;
}

void AddCompile(const model::ApiStatisticRow& row, HostApiStats* out) {
  out->compile_calls += row.count;
  out->compile_ns += row.total_ns;
  if (out->compile_apis.find(row.api_name) == std::string::npos) {
    out->compile_apis += (out->compile_apis.empty() ? "" : ", ") + row.api_name;
  }
}

}  // namespace

std::optional<HostApiStats> SummarizeHostApis(const model::RankProfile& profile) {
  if (!profile.has_api_statistic) return std::nullopt;
  HostApiStats out;
  out.steps = CapturedSteps(profile);
  const bool any_outer = std::any_of(
      profile.api_statistic.begin(), profile.api_statistic.end(),
      [](const auto& row) { return ClassifyCompileApi(row.api_name) == CompileApi::kOuter; });
  for (const model::ApiStatisticRow& row : profile.api_statistic) {
    const CompileApi kind = ClassifyCompileApi(row.api_name);
    if (kind == CompileApi::kOuter || (kind == CompileApi::kInner && !any_outer)) {
      AddCompile(row, &out);
    }
    // The node level's "launch" is one call per operator launch (191 on the
    // corpus ResNet step of 191 kernels, 2,467 for Qwen3's 2,463).
    if (row.level == "node" && row.api_name == "launch") {
      out.launch_calls = out.launch_calls.value_or(0) + row.count;
      out.launch_ns = out.launch_ns.value_or(0) + row.total_ns;
    }
  }
  return out;
}

}  // namespace trainscope::analysis
