// Device idle behind a host span: the device has nothing to run (no kernel,
// collective, copy or memset on any stream) while the host is busy elsewhere.
// Shared by the analyses that charge device idle to one kind of host work:
// synchronisation calls (host_sync) and the data loader (input_bound).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "analysis/common/breakdown_intervals.h"
#include "model/device_events.h"

namespace trainscope::analysis {

// The union of the device activity of |rows| of |events| (every kind, as the
// time budget's busy time), by start.
std::vector<Interval> DeviceBusy(const model::DeviceEvents& events, model::RowSet rows);

// Time in [lo, hi) covered by no interval of |busy| (a union, by start);
// 0 when hi <= lo.
int64_t IdleIn(const std::vector<Interval>& busy, int64_t lo, int64_t hi);

}  // namespace trainscope::analysis
