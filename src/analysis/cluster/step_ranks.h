#pragma once
// One step as the cross-rank critical path and its replay read it: per rank
// its collectives of the step in start order, and whether the rank waited
// for each (critical_path.h, step_replay.h).

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/cluster/communication.h"

namespace trainscope::analysis {

// One rank's view of the step: its collectives in start order.
struct RankStep {
  int32_t rank = -1;
  const RankStepComm* step = nullptr;
  std::vector<const CommInstance*> ops;
  bool host_known = false;  // RankComm::host_known
};

// A time the summary may not know (-1) as a duration: unknown adds nothing.
inline int64_t KnownOrZero(int64_t ns) { return ns > 0 ? ns : 0; }

// The rank waited for |op|: its compute covered less than half of it (an
// overlapped all-gather is part of the work around it). Unknown compute
// counts as waiting.
bool Blocking(const CommInstance& op);

// The ranks of |comm| with a usable device timeline of |step| (a kernel
// window and the compute after the last collective); |note| names the
// others, "" when there are none.
std::vector<RankStep> RanksOfStep(const std::vector<RankComm>& comm, int32_t step,
                                  std::string* note);

}  // namespace trainscope::analysis
