#pragma once
// The cross-rank critical path of one step (docs/clusters.md §3c): the chain
// of work, on whichever rank, that sets the step's time. Ranks synchronise
// at their blocking collectives: such a collective ends once its last
// participant has arrived and the data has moved, so the path through it
// runs back to the rank that arrived last. Walking back from the rank that
// ends the step, each blocking collective hands the path to its last
// arrival; between collectives the path is that rank's own work, split into
// its compute and the rest (host launch and dispatch, data loading, host
// syncs: the device was idle). Read on aligned clocks (clock_alignment.h).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/cluster/communication.h"
#include "analysis/cluster/step_replay.h"
#include "analysis/common/host_idle.h"

namespace trainscope::analysis {

enum class PathSegmentKind : uint8_t {
  kWork,       // one rank's work between two of its blocking collectives
  kTransfer,   // a collective, from its last participant's arrival to its end
  kLateStart,  // before the path's first rank began the step, after the first rank did
};

const char* PathSegmentKindName(PathSegmentKind kind);

struct PathSegment {
  PathSegmentKind kind = PathSegmentKind::kWork;
  int32_t rank = -1;  // whose work; the last arrival of a transfer; the late starter
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t compute_ns = 0;  // kWork: the rank's compute in it (the rest: device idle)
  // kWork, kLateStart: the device idle in it charged to the rank's host
  // (data loader, sync, launch: common/host_idle.h); the rest is idle.
  HostIdleTimes host;
  // kTransfer: the collective's type and key, and how many ranks ran it.
  std::string collective;
  int32_t participants = 0;
  int64_t duration_ns() const { return end_ns - start_ns; }
};

struct CriticalPath {
  bool computed = false;
  int32_t step = -1;
  int64_t start_ns = 0;               // the first rank's step start
  int64_t end_ns = 0;                 // the last rank's step end
  std::vector<PathSegment> segments;  // in time order, covering [start_ns, end_ns]
  // The step's time charged by category: sums of the segments.
  int64_t compute_ns = 0;
  // Work and late-start time the device was idle with no host cause found
  // (or none looked for: see host_known).
  int64_t idle_ns = 0;
  int64_t transfer_ns = 0;
  // The late start's time not charged to the host (its share in |host|).
  int64_t late_start_ns = 0;
  // Device idle on the path charged to the host: data loader, host sync,
  // launch / dispatch. |host_known|: every rank the path works on recorded
  // its host side (a trace with host ops); otherwise those ranks' idle
  // stays idle and the host categories are unknown, not zero.
  HostIdleTimes host;
  bool host_known = false;
  // Time on the path per rank (work and late start; transfers to the last
  // arrival), ranks in descending order of time.
  std::vector<std::pair<int32_t, int64_t>> by_rank;
  int64_t blocking_collectives = 0;  // collectives the path went through
  // The other side of the path: per rank, its time in the step's blocking
  // collectives before their last participant arrived (waiting for that
  // rank), and the rank it waited for longest. Ranks that waited, in
  // descending order of the wait.
  struct RankWait {
    int32_t rank = -1;
    int64_t waited_ns = 0;
    int32_t mostly_for = -1;    // the last arrival it waited for longest
    int64_t mostly_for_ns = 0;  // how long it waited for that rank
    int64_t collectives = 0;    // blocking collectives it waited in
  };
  std::vector<RankWait> waits;
  std::string note;  // why not computed, or what it could not use
  // What-if by replay (AddWhatIfs): each change re-timed through the same
  // graph. |replayed_ns|: the unchanged replay's span, the model's check
  // against the measured one (-1: no replay).
  int64_t replayed_ns = -1;
  struct WhatIf {
    std::string change;
    int64_t predicted_ns = 0;  // the step's span with the change
    // The finding whose remedy the change is ("" for the path's own
    // changes; "all" for every replayed finding's together).
    std::string finding;
  };
  std::vector<WhatIf> what_if;
  std::string replay_note;  // why no replay ("" when it ran)
  // The remedies of every finding replayed (findings/replayed_gains.h)
  // together, as a share of the unchanged replay; unknown when none was.
  std::optional<double> findings_together_gain_pct;
};

// The critical path of |step| over |comm| (aligned times). A collective is
// blocking on a rank when the rank's compute covered less than half of it
// (the rank waited for it); an overlapped one is part of the work around it.
CriticalPath CrossRankCriticalPath(const std::vector<RankComm>& comm, int32_t step);

// The path's own changes replayed (step_replay.h), one at a time, then all
// together: every rank starts with the first (when the path has a late
// start); each of |stragglers| at its peers' median pace; the blocking
// collectives' transfers hidden (when the path has any). Without |replay|,
// |why| becomes the path's replay note.
void AddWhatIfs(const std::optional<StepReplay>& replay, const std::string& why,
                const std::vector<int32_t>& stragglers, CriticalPath* path);

}  // namespace trainscope::analysis
