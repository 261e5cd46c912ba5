// Dynamic-shape operators and online compilation (as
// msprof-analyze advisor's "Operator Dynamic Shape" and "Operator Dispatch"
// rules): kernel_details.csv's OP State per kernel, and the host time
// api_statistic.csv records in operator compilation and kernel launch APIs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/rank_profile.h"

namespace trainscope::analysis {

// The compute kernels of one step by OP State.
struct DynamicShapeStats {
  int64_t kernels = 0;          // compute kernels with a known OP State
  int64_t dynamic_kernels = 0;  // of them, dynamic
  int64_t kernel_ns = 0;        // compute kernel time with a known OP State
  int64_t dynamic_ns = 0;       // of it, in dynamic kernels
  double dynamic_share() const {
    return kernel_ns > 0 ? static_cast<double>(dynamic_ns) / static_cast<double>(kernel_ns) : 0;
  }
};

// nullopt when no compute kernel of |step| has an OP State (Level0, CANN
// before 8.0, GPU traces): unknown, not "static".
std::optional<DynamicShapeStats> ComputeDynamicShapes(const model::RankProfile& profile,
                                                      int32_t step);

// Whether |api| compiles operators online: the aclop compile entry points
// (aclopCompile, aclopCompileAndExecute, aclopCompileAndExecuteV2) are
// "outer"; any other name containing "Compile" (opCompile) is an inner step
// that the outer calls already contain.
enum class CompileApi : uint8_t { kNone, kOuter, kInner };
CompileApi ClassifyCompileApi(std::string_view api);

// Host API time of the capture (api_statistic.csv covers the whole capture,
// not one step), averaged over the captured steps.
struct HostApiStats {
  int64_t steps = 1;                    // captured steps the totals are divided by
  int64_t compile_calls = 0;            // online-compile API calls (outer ones when any)
  int64_t compile_ns = 0;               // host time in them
  std::string compile_apis;             // their names, "aclopCompileAndExecute"
  std::optional<int64_t> launch_calls;  // node-level "launch" (one per operator launch)
  std::optional<int64_t> launch_ns;
  int64_t compile_ns_per_step() const { return compile_ns / steps; }
  double compile_calls_per_step() const {
    return static_cast<double>(compile_calls) / static_cast<double>(steps);
  }
};

// nullopt when the rank has no api_statistic.csv.
std::optional<HostApiStats> SummarizeHostApis(const model::RankProfile& profile);

}  // namespace trainscope::analysis
