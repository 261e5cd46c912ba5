// Host synchronisation in a step: a host that waits for
// the device (cudaStreamSynchronize, .item(), aclrtSynchronizeStream) stops
// issuing work, so the device drains its queue and idles until the host
// launches again. That idle is the sync's cost, told apart from a host that
// is merely slow (host-bound).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/rank_profile.h"

namespace trainscope::analysis {

struct HostSyncStats {
  int64_t syncs = 0;       // runtime synchronisation calls in the step
  int64_t item_calls = 0;  // of them, inside .item() (aten::_local_scalar_dense)
  int64_t sync_ns = 0;     // host time in them (summed)
  // Device idle the syncs cost: per sync, the idle from its start until the
  // first device event after it returns, at most the time the host waited
  // in it (without the sync the host would have been that much earlier).
  int64_t idle_ns = 0;
  // Of the calls, copies that blocked the host: a synchronous memcpy, or an
  // async one that returned only after its device copy ended (a copy to
  // pageable memory: .item(), .cpu(), .tolist() wait there, milliseconds,
  // and the synchronize after it takes microseconds).
  int64_t blocking_copies = 0;
  // The call site behind the most idle: its framework op (the outermost
  // aten:: op above the call, e.g. aten::item) and its source line (the
  // innermost user frame of the nearest op with a Python stack); "" when
  // unknown.
  std::string site_op;
  std::string site_source;
  int64_t site_idle_ns = 0;
};

// The host ops of |profile| that block the host until the device is done,
// by start: synchronisation calls and blocking copies. Found once per rank
// (a trace has millions of host ops, a step only a few syncs).
std::vector<uint32_t> FindHostSyncCalls(const model::RankProfile& profile);

// nullopt when the profile has no host ops (no trace), or the step has no
// device events; a step with host ops and no sync has syncs == 0. |calls|
// from FindHostSyncCalls.
std::optional<HostSyncStats> ComputeHostSync(const model::RankProfile& profile, int32_t step,
                                             const std::vector<uint32_t>& calls);

// Where a sync's device idle is charged: from the call's start until the
// device's first event after it returns (without the sync the host would
// have issued that work earlier), at most |cap_ns|, the time the host
// waited in it. |starts|: the device events' starts, sorted. When no event
// follows, until |no_next_end|; nullopt without one.
struct SyncIdleWindow {
  int64_t from_ns = 0;
  int64_t to_ns = 0;
  int64_t cap_ns = 0;
};
std::optional<SyncIdleWindow> SyncIdleWindowOf(const model::HostOps& ops, uint32_t call,
                                               const std::vector<int64_t>& starts,
                                               std::optional<int64_t> no_next_end);

// Whether |name| is a runtime call that blocks the host until the device
// (a stream, an event or the whole device) is done.
bool IsHostSyncCall(std::string_view name);

}  // namespace trainscope::analysis
