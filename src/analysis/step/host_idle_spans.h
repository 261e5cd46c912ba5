// The device's idle time over a rank's whole capture, charged to the host
// cause that explains it (common/host_idle.h): what the cross-rank critical
// path charges its idle to (docs/clusters.md §3c). The criteria are the step
// measures' own, so the path and the findings count the same time:
// - data loader (input_bound.h): idle while the host is inside a
//   data-loader call, from the capture's first device event on;
// - host sync (host_sync.h): idle from a sync's start until the device's
//   next event after it returns, at most the time the host waited in it;
// - launch (launch_gaps.h): a gap whose ending event was launched after
//   the device went idle.
// A stretch has one cause, taken in that order, as the findings do (the
// loader's idle is input-bound's, not slow dispatch).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/common/host_idle.h"
#include "analysis/step/input_bound.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

// Disjoint, by start; empty when the profile has no host ops (no trace) or
// no device events. |loader| from FindDataLoaderCalls, |sync_calls| from
// FindHostSyncCalls.
std::vector<HostIdleSpan> HostIdleSpans(const model::RankProfile& profile,
                                        const DataLoaderCalls& loader,
                                        const std::vector<uint32_t>& sync_calls);

}  // namespace trainscope::analysis
