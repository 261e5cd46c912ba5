#pragma once
// What-if by replay (docs/clusters.md §3c): one step of every rank as a
// graph, re-timed with a change. Per rank: its start, the work before each
// collective that synchronises (one some participant waited for: the last
// to arrive may have computed right through its short share of it) and the
// tail after the last, each with the compute in it; per collective instance
// its transfer (median end - last arrival). Re-timed in the collectives'
// order, an instance ends at its participants' latest arrival plus its
// transfer, so a change on one rank reaches the others only through the
// collectives that wait for it, and savings that overlap count once by
// construction.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/cluster/communication.h"
#include "analysis/common/host_idle.h"

namespace trainscope::analysis {

// A change to the step, as a remedy would make it. Changes combine (Add):
// their effects are replayed together, not summed.
struct ReplayChange {
  // Every rank starts at most this long after the first (0: together;
  // -1: starts as measured).
  int64_t start_spread_ns = -1;
  // These ranks work at their peers' median pace: their windows before each
  // collective and their tail become the median of the other participants',
  // and a start later than the others' median becomes that median.
  std::vector<int32_t> at_peers_pace;
  // The synchronising collectives' transfers hidden (perfect overlap): all
  // of them, or those of the listed types (all-gathers prefetched).
  bool transfers_hidden = false;
  std::vector<CollectiveType> transfers_hidden_of;
  // The share of every other synchronising transfer kept (1: as measured):
  // overlap that leaves part of it exposed.
  double transfer_kept_share = 1.0;
  // Compute removed per rank in the step (a fused chain's saving), taken
  // from the rank's windows in proportion to the compute in each.
  std::map<int32_t, int64_t> compute_saved_ns;
  // A link at its transport's pace: every synchronising collective both
  // ranks take part in keeps |kept_share| of its transfer (a ring runs at
  // its slowest link's pace; the fix brings it to the others'). A change
  // whose links match no collective of the step cannot be replayed.
  struct LinkSpeedup {
    int32_t src = -1;
    int32_t dst = -1;
    double kept_share = 1.0;
    bool operator==(const LinkSpeedup&) const = default;
  };
  std::vector<LinkSpeedup> links_sped_up;
  // The device idle a rank's host caused, of one kind, removed (its data
  // loader prefetching, its syncs gone, its launches ahead of the device):
  // each window and the tail lose that idle, and the rank starts earlier by
  // what it had before its first event (no earlier than the first other
  // rank). Ranks outside the replay are ignored; one whose host side was
  // not recorded makes the change impossible to replay.
  std::vector<std::pair<int32_t, HostIdleKind>> host_idle_removed;

  bool empty() const;
  void Add(const ReplayChange& other);
};

class StepReplay {
 public:
  // The graph of |step| over |comm| (aligned times); nullopt with |why| when
  // fewer than two ranks have a usable timeline of it or their orders of the
  // synchronising collectives disagree (no schedule keeps them all).
  static std::optional<StepReplay> Build(const std::vector<RankComm>& comm, int32_t step,
                                         std::string* why);

  // The unchanged replay's span (first start to last end): the model's
  // check against the measured span.
  int64_t replayed_ns() const { return replayed_ns_; }
  // The span with |change| applied; nullopt when it cannot be replayed.
  std::optional<int64_t> Predict(const ReplayChange& change) const;
  // The ranks in the graph.
  std::vector<int32_t> ranks() const;

  struct Rank {
    int32_t rank = -1;
    int64_t start = 0;
    bool host_known = false;  // its host side was recorded (RankComm::host_known)
    // The device idle before the step's first event charged to the host
    // (since the rank's previous step).
    HostIdleTimes start_host;
    struct Window {
      size_t instance = 0;  // the collective it ends at
      int64_t work = 0;     // from the previous collective's end (or the start) to the arrival
      int64_t compute = 0;  // the rank's compute in it
      HostIdleTimes host;   // its device idle charged to the host
    };
    std::vector<Window> seq;
    int64_t tail = 0;  // after the last synchronising collective
    int64_t tail_compute = 0;
    HostIdleTimes tail_host;
  };
  struct Instance {
    CollectiveType type = CollectiveType::kOther;
    int64_t transfer = 0;
    int64_t measured_end = 0;   // orders instances that become ready together
    std::vector<size_t> ranks;  // participants (indices into ranks_)
  };

 private:
  std::vector<Rank> ranks_;
  std::vector<Instance> instances_;
  int64_t replayed_ns_ = 0;
};

}  // namespace trainscope::analysis
