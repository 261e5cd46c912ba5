// Kernel launch statistics (HTA get_cuda_kernel_launch_stats): for each
// device activity launched by a host runtime call, cpu duration, gpu duration
// and launch delay = activity start - (launch start + launch duration).
#pragma once

#include <cstdint>
#include <vector>

#include "model/rank_profile.h"

namespace trainscope::analysis {

struct LaunchStatsOptions {
  int64_t short_cpu_max_ns = 50'000;  // HTA: cpu_duration <= 50 µs
  int64_t long_runtime_ns = 50'000;   // runtime call > 50 µs
  int64_t long_delay_ns = 100'000;    // launch delay > 100 µs
};

struct LaunchStats {
  int64_t launches = 0;       // activities with a launching host op
  int64_t short_kernels = 0;  // gpu < cpu duration and cpu <= short_cpu_max
  int64_t long_runtime = 0;
  int64_t long_delay = 0;
  int64_t total_delay_ns = 0;
  int64_t max_delay_ns = 0;
  std::vector<int64_t> delay_ns;  // per launched activity, in activity order
};

LaunchStats ComputeLaunchStats(const model::Timeline& timeline, const LaunchStatsOptions& options);

}  // namespace trainscope::analysis
