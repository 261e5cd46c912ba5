#include "analysis/launch_stats.h"

#include <algorithm>

#include "core/numbers.h"

namespace trainscope::analysis {

LaunchStats ComputeLaunchStats(const model::Timeline& tl, const LaunchStatsOptions& options) {
  LaunchStats s;
  const model::DeviceActivities& acts = tl.activities;
  for (size_t i = 0; i < acts.size(); ++i) {
    int32_t launcher = acts.launcher[i];
    if (launcher == model::kNoIndex || acts.kind[i] == model::ActivityKind::kOther) continue;
    size_t l = static_cast<size_t>(launcher);
    int64_t cpu = tl.host_ops.duration_ns[l];
    int64_t gpu = acts.duration_ns[i];
    int64_t delay = acts.start_ns[i] - tl.host_ops.end_ns(l);
    ++s.launches;
    if (gpu < cpu && cpu <= options.short_cpu_max_ns) ++s.short_kernels;
    if (cpu > options.long_runtime_ns) ++s.long_runtime;
    if (delay > options.long_delay_ns) ++s.long_delay;
    AddSaturating(s.total_delay_ns, delay);
    s.max_delay_ns = std::max(s.max_delay_ns, delay);
    s.delay_ns.push_back(delay);
  }
  return s;
}

}  // namespace trainscope::analysis
