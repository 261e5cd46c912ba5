#include "analysis/step/launch_gaps.h"

#include <algorithm>
#include <vector>

#include "analysis/common/statistics.h"
#include "analysis/step/device_idle.h"

namespace trainscope::analysis {

std::optional<int64_t> LaunchEndingGap(const model::RankProfile& profile, model::RowSet rows,
                                       int64_t gap_end, size_t* next) {
  const model::DeviceEvents& events = profile.device_events;
  while (*next < rows.size() && events.start_ns[rows[*next]] < gap_end) ++*next;
  std::optional<int64_t> launched;
  for (size_t k = *next; k < rows.size() && events.start_ns[rows[k]] == gap_end; ++k) {
    if (const std::optional<int64_t> end = LaunchEndOf(profile, rows[k])) {
      launched = launched ? std::min(*launched, *end) : *end;
    }
  }
  return launched;
}

std::optional<LaunchGapStats> ComputeLaunchGaps(const model::RankProfile& profile, int32_t step) {
  const model::DeviceEvents& events = profile.device_events;
  const model::RowSet rows = events.RowsOf(step);
  if (rows.empty()) return std::nullopt;
  std::vector<double> delays;
  for (uint32_t i : rows) {
    if (const std::optional<int64_t> end = LaunchEndOf(profile, i)) {
      delays.push_back(static_cast<double>(events.start_ns[i] - *end));
    }
  }
  if (delays.empty()) return std::nullopt;
  LaunchGapStats stats;
  stats.median_launch_delay_ns = static_cast<int64_t>(Median(delays));

  // Rows are in start order; the first row starting at or after a gap's end
  // is the event that ends it (the earliest launched one when several start
  // together).
  const std::vector<Interval> busy = DeviceBusy(events, rows);
  size_t next = 0;
  for (size_t g = 0; g + 1 < busy.size(); ++g) {
    const int64_t gap_start = busy[g].end;
    const int64_t gap_end = busy[g + 1].start;
    if (gap_end <= gap_start) continue;
    ++stats.gaps;
    stats.idle_ns += gap_end - gap_start;
    const std::optional<int64_t> launched = LaunchEndingGap(profile, rows, gap_end, &next);
    if (!launched) continue;
    ++stats.gaps_with_launch;
    if (*launched > gap_start) {
      ++stats.launch_bound_gaps;
      stats.launch_bound_ns += gap_end - gap_start;
    }
  }
  return stats;
}

}  // namespace trainscope::analysis
