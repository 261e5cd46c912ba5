#include "analysis/idle_time.h"

#include <algorithm>
#include <map>
#include <utility>

namespace trainscope::analysis {

std::vector<StreamIdle> ComputeIdleTime(const model::Timeline& tl,
                                        int64_t consecutive_kernel_delay_ns) {
  const model::DeviceActivities& acts = tl.activities;
  std::map<std::pair<int32_t, int32_t>, std::vector<uint32_t>> streams;
  for (size_t i = 0; i < acts.size(); ++i) {
    if (acts.kind[i] == model::ActivityKind::kOther) continue;
    streams[{acts.device[i], acts.stream[i]}].push_back(static_cast<uint32_t>(i));
  }
  std::vector<StreamIdle> out;
  for (const auto& [key, members] : streams) {  // activities are sorted by start already
    StreamIdle idle;
    idle.device = key.first;
    idle.stream = key.second;
    int64_t prev_end = 0;
    bool first = true;
    for (uint32_t i : members) {
      if (!first && acts.start_ns[i] > prev_end) {
        int64_t gap = acts.start_ns[i] - prev_end;
        int32_t launcher = acts.launcher[i];
        if (launcher != model::kNoIndex &&
            tl.host_ops.start_ns[static_cast<size_t>(launcher)] > prev_end) {
          idle.host_wait_ns += gap;
        } else if (gap < consecutive_kernel_delay_ns) {
          idle.kernel_wait_ns += gap;
        } else {
          idle.other_ns += gap;
        }
      }
      prev_end = first ? acts.end_ns(i) : std::max(prev_end, acts.end_ns(i));
      first = false;
    }
    out.push_back(idle);
  }
  return out;
}

}  // namespace trainscope::analysis
