// Idle-time classification per stream, as HTA get_idle_time_breakdown: the
// gap before each activity on a stream is host-wait when its launch call
// started after the previous activity ended (the device waited for the host),
// kernel-wait when the gap is shorter than consecutive_kernel_delay (30 µs),
// other otherwise.
#pragma once

#include <cstdint>
#include <vector>

#include "model/rank_profile.h"

namespace trainscope::analysis {

struct StreamIdle {
  int32_t device = -1;
  int32_t stream = -1;
  int64_t host_wait_ns = 0;
  int64_t kernel_wait_ns = 0;
  int64_t other_ns = 0;
};

std::vector<StreamIdle> ComputeIdleTime(const model::Timeline& timeline,
                                        int64_t consecutive_kernel_delay_ns = 30'000);

}  // namespace trainscope::analysis
