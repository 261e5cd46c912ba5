// What every fuzzer of a profile reader asserts of what it read, whatever
// the input: an invariant broken aborts, which libFuzzer reports as a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "core/row_ledger.h"
#include "model/rank_profile.h"

namespace trainscope::fuzz {

inline void Check(bool condition) {
  if (!condition) std::abort();
}

// Every ledger balanced (rows read = used + skipped), no negative duration,
// every launcher and host-op parent an index in range (a parent before its
// child).
inline void CheckProfile(const model::RankProfile& p) {
  for (const RowLedger& ledger : p.ledgers) Check(ledger.Balanced());
  const auto& events = p.device_events;
  const auto& ops = p.timeline.host_ops;
  for (size_t i = 0; i < events.size(); ++i) {
    Check(events.duration_ns[i] >= 0);
    const int32_t launcher = events.launcher[i];
    Check(launcher == model::kNoIndex ||
          (launcher >= 0 && static_cast<size_t>(launcher) < ops.size()));
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    Check(ops.parent[i] == model::kNoIndex ||
          (ops.parent[i] >= 0 && static_cast<size_t>(ops.parent[i]) < i));
  }
}

}  // namespace trainscope::fuzz
