// Device idle behind kernel launches ("host-bound,
// proven"): free time alone does not say the host is slow. A gap in the
// device's activity is the host's when the host had not yet issued the
// work that ends the gap: the first device event after the gap was launched
// (its launching host op ended) after the device went idle. Then had the
// host issued it earlier the gap would not exist. A gap whose next event
// was launched before the device went idle is not the launch rate's (a
// dependency, a wait on another stream or a collective peer).
//
// No threshold: the criterion compares two times of the same trace. The
// launching host op is the runtime call linked by correlation on GPU traces
// (cudaLaunchKernel, hipLaunchKernel: HTA's launch delay is measured from its
// end too), the framework op linked by flow on Ascend trace_view.json.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "model/rank_profile.h"

namespace trainscope::analysis {

struct LaunchGapStats {
  int64_t gaps = 0;               // idle gaps of the device inside the step's window
  int64_t idle_ns = 0;            // their total
  int64_t gaps_with_launch = 0;   // of them, ended by an event whose launch is known
  int64_t launch_bound_gaps = 0;  // of those, launched after the device went idle
  int64_t launch_bound_ns = 0;    // their idle
  // Launch delay (event start - end of its launching host op) of the step's
  // events with a known launch: median, in ns; HTA's kernel launch delay.
  std::optional<int64_t> median_launch_delay_ns;
};

// nullopt when no event of the step has a known launch (no trace, or a trace
// without launch links), so the launch rate cannot be judged.
std::optional<LaunchGapStats> ComputeLaunchGaps(const model::RankProfile& profile, int32_t step);

// The end of the host op that launched device event |row|; nullopt when its
// launch is not known. Inline: an optional returned from a call goes
// through memory (core/numbers.h), once per kernel here.
inline std::optional<int64_t> LaunchEndOf(const model::RankProfile& profile, uint32_t row) {
  const model::HostOps& ops = profile.timeline.host_ops;
  const int32_t op = profile.device_events.launcher[row];
  if (op == model::kNoIndex || static_cast<size_t>(op) >= ops.size()) return std::nullopt;
  return ops.end_ns(static_cast<size_t>(op));
}

// The launch of the work that ends an idle gap at |gap_end|: the earliest
// launch end among the events of |rows| (start order) that start exactly
// then; nullopt when none of them has a known launch. |*next| walks |rows|
// forward across calls for gaps in time order. The gap is the host's when
// the result is after the gap began.
std::optional<int64_t> LaunchEndingGap(const model::RankProfile& profile, model::RowSet rows,
                                       int64_t gap_end, size_t* next);

}  // namespace trainscope::analysis
