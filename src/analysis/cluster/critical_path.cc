#include "analysis/cluster/critical_path.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "analysis/cluster/step_ranks.h"

namespace trainscope::analysis {
namespace {

// Where the walk stands: on |rank| (index into the ranks), at time |t|,
// which is either the step's end on that rank (|next| == its op count) or
// the arrival at its op |next|.
struct WalkState {
  size_t rank = 0;
  size_t next = 0;
  int64_t t = 0;
};

// The participants of each instance: (rank index, op index) by key.
using Instances = std::unordered_map<std::string, std::vector<std::pair<size_t, size_t>>>;

Instances InstancesOf(const std::vector<RankStep>& ranks) {
  Instances out;
  for (size_t r = 0; r < ranks.size(); ++r) {
    for (size_t k = 0; k < ranks[r].ops.size(); ++k) out[ranks[r].ops[k]->key].emplace_back(r, k);
  }
  return out;
}

void AddSegment(PathSegment segment, CriticalPath* path) {
  if (segment.end_ns < segment.start_ns) segment.end_ns = segment.start_ns;
  if (segment.kind == PathSegmentKind::kWork)
    segment.compute_ns = std::clamp<int64_t>(segment.compute_ns, 0, segment.duration_ns());
  // The host's charges fit in the idle the window has (the windows the
  // summary charged them in may reach past the segment's ends).
  int64_t room = segment.duration_ns() - segment.compute_ns;
  for (int64_t* ns :
       {&segment.host.data_loader_ns, &segment.host.host_sync_ns, &segment.host.launch_ns}) {
    *ns = std::clamp<int64_t>(*ns, 0, room);
    room -= *ns;
  }
  path->segments.push_back(std::move(segment));
}

// One work window back from |state| to the rank's previous blocking
// collective (or its step start); returns that collective's index + 1, 0
// when none.
size_t WalkWork(const RankStep& r, const WalkState& state, CriticalPath* path) {
  const size_t n = r.ops.size();
  int64_t compute = state.next == n ? KnownOrZero(r.step->compute_after_last_ns)
                                    : KnownOrZero(r.ops[state.next]->compute_before_ns);
  HostIdleTimes host =
      state.next == n ? r.step->host_idle_after_last : r.ops[state.next]->host_idle_before;
  size_t k = state.next;
  while (k > 0 && !Blocking(*r.ops[k - 1])) {
    compute +=
        KnownOrZero(r.ops[k - 1]->compute_during_ns) + KnownOrZero(r.ops[k - 1]->compute_before_ns);
    host += r.ops[k - 1]->host_idle_before;
    --k;
  }
  const int64_t from = k == 0
                           ? r.step->first_start_ns
                           : std::min(state.t, r.ops[k - 1]->start_ns + r.ops[k - 1]->duration_ns);
  AddSegment({PathSegmentKind::kWork, r.rank, from, state.t, compute, host, "", 0}, path);
  return k;
}

// Each rank's wait in the blocking collectives of the step: from its
// arrival to the last participant's arrival (at most to the collective's
// end), charged to that last arrival.
std::vector<CriticalPath::RankWait> WaitsOf(const std::vector<RankStep>& ranks,
                                            const Instances& instances) {
  std::map<int32_t, CriticalPath::RankWait> waits;
  std::map<std::pair<int32_t, int32_t>, int64_t> waited_for;  // (rank, last arrival) -> ns
  for (const auto& [key, members] : instances) {
    if (members.size() < 2) continue;
    auto op_of = [&ranks](const std::pair<size_t, size_t>& member) -> const CommInstance& {
      return *ranks[member.first].ops[member.second];
    };
    // A collective some participant waited for; its first last arrival.
    bool blocking = false;
    size_t last = 0;
    for (size_t m = 0; m < members.size(); ++m) {
      blocking = blocking || Blocking(op_of(members[m]));
      if (op_of(members[m]).start_ns > op_of(members[last]).start_ns) last = m;
    }
    if (!blocking) continue;
    const int32_t last_rank = ranks[members[last].first].rank;
    const int64_t last_arrival = op_of(members[last]).start_ns;
    for (size_t m = 0; m < members.size(); ++m) {
      if (m == last) continue;
      const CommInstance& op = op_of(members[m]);
      const int64_t wait =
          std::min(last_arrival, op.start_ns + KnownOrZero(op.duration_ns)) - op.start_ns;
      if (wait <= 0) continue;
      const int32_t rank = ranks[members[m].first].rank;
      CriticalPath::RankWait& w = waits[rank];
      w.rank = rank;
      w.waited_ns += wait;
      ++w.collectives;
      waited_for[{rank, last_rank}] += wait;
    }
  }
  for (const auto& [pair, ns] : waited_for) {
    CriticalPath::RankWait& w = waits[pair.first];
    if (ns > w.mostly_for_ns) {
      w.mostly_for_ns = ns;
      w.mostly_for = pair.second;
    }
  }
  std::vector<CriticalPath::RankWait> out;
  out.reserve(waits.size());
  for (const auto& [rank, w] : waits) out.push_back(w);
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.waited_ns > b.waited_ns; });
  return out;
}

void Summarize(CriticalPath* path) {
  std::reverse(path->segments.begin(), path->segments.end());
  std::map<int32_t, int64_t> by_rank;
  for (const PathSegment& s : path->segments) {
    switch (s.kind) {
      case PathSegmentKind::kWork:
        path->compute_ns += s.compute_ns;
        path->idle_ns += s.duration_ns() - s.compute_ns - s.host.total();
        break;
      case PathSegmentKind::kTransfer:
        path->transfer_ns += s.duration_ns();
        ++path->blocking_collectives;
        break;
      case PathSegmentKind::kLateStart:
        path->late_start_ns += s.duration_ns() - s.host.total();
        break;
    }
    path->host += s.host;
    by_rank[s.rank] += s.duration_ns();
  }
  path->by_rank.assign(by_rank.begin(), by_rank.end());
  std::stable_sort(path->by_rank.begin(), path->by_rank.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
}

}  // namespace

const char* PathSegmentKindName(PathSegmentKind kind) {
  switch (kind) {
    case PathSegmentKind::kWork:
      return "work";
    case PathSegmentKind::kTransfer:
      return "transfer";
    case PathSegmentKind::kLateStart:
      return "late_start";
  }
  return "work";
}

CriticalPath CrossRankCriticalPath(const std::vector<RankComm>& comm, int32_t step) {
  CriticalPath path;
  path.step = step;
  const std::vector<RankStep> ranks = RanksOfStep(comm, step, &path.note);
  if (ranks.size() < 2) {
    path.note =
        "fewer than two ranks with a usable device timeline of the step (none, or set aside as "
        "wrong): no cross-rank path";
    return path;
  }
  const Instances instances = InstancesOf(ranks);
  WalkState state;
  path.start_ns = ranks[0].step->first_start_ns;
  path.end_ns = ranks[0].step->last_end_ns;
  for (size_t r = 0; r < ranks.size(); ++r) {
    path.start_ns = std::min(path.start_ns, ranks[r].step->first_start_ns);
    if (ranks[r].step->last_end_ns > path.end_ns) {
      path.end_ns = ranks[r].step->last_end_ns;
      state.rank = r;
    }
  }
  state.next = ranks[state.rank].ops.size();
  state.t = path.end_ns;
  size_t guard = ranks.size() + 2;
  for (const RankStep& r : ranks) guard += r.ops.size();
  for (; guard > 0; --guard) {
    const RankStep& r = ranks[state.rank];
    const size_t k = WalkWork(r, state, &path);
    if (k == 0) break;
    const CommInstance& op = *r.ops[k - 1];
    // The instance's last arrival (this rank on a tie: the path stays).
    WalkState last{state.rank, k - 1, op.start_ns};
    const auto& members = instances.at(op.key);
    for (const auto& [rank, index] : members) {
      const int64_t arrival = ranks[rank].ops[index]->start_ns;
      if (arrival > last.t) last = {rank, index, arrival};
    }
    const int64_t end = std::min(state.t, op.start_ns + op.duration_ns);
    last.t = std::min(last.t, end);
    AddSegment({PathSegmentKind::kTransfer,
                ranks[last.rank].rank,
                last.t,
                end,
                0,
                {},
                fmt::format("{} {}", CollectiveTypeName(op.type), op.key),
                static_cast<int32_t>(members.size())},
               &path);
    state = last;
  }
  const RankStep& first = ranks[state.rank];
  const int64_t path_start = path.segments.empty() ? path.start_ns : path.segments.back().start_ns;
  if (path_start > path.start_ns)
    AddSegment(
        {PathSegmentKind::kLateStart, first.rank, path.start_ns, path_start, 0,
         HostIdleWithin(first.step->host_idle_before_start, path.start_ns, path_start), "", 0},
        &path);
  path.host_known = true;
  for (const PathSegment& s : path.segments) {
    if (s.kind == PathSegmentKind::kTransfer) continue;
    const auto r = std::find_if(ranks.begin(), ranks.end(),
                                [&s](const RankStep& x) { return x.rank == s.rank; });
    if (r != ranks.end() && !r->host_known) path.host_known = false;
  }
  Summarize(&path);
  path.waits = WaitsOf(ranks, instances);
  path.computed = true;
  return path;
}

void AddWhatIfs(const std::optional<StepReplay>& replay, const std::string& why,
                const std::vector<int32_t>& stragglers, CriticalPath* path) {
  if (!path->computed) return;
  if (!replay) {
    path->replay_note = why;
    return;
  }
  path->replayed_ns = replay->replayed_ns();
  ReplayChange all;
  auto add = [&](std::string change, const ReplayChange& what) {
    if (const std::optional<int64_t> span = replay->Predict(what))
      path->what_if.push_back({std::move(change), *span, ""});
    all.Add(what);
  };
  const bool late_start =
      std::any_of(path->segments.begin(), path->segments.end(),
                  [](const PathSegment& s) { return s.kind == PathSegmentKind::kLateStart; });
  if (late_start) add("every rank starts with the first", {.start_spread_ns = 0});
  const std::vector<int32_t> replayed = replay->ranks();
  for (int32_t straggler : stragglers) {
    if (std::find(replayed.begin(), replayed.end(), straggler) == replayed.end()) continue;
    add(fmt::format("rank {} works at its peers' median pace", straggler),
        {.at_peers_pace = {straggler}});
  }
  if (path->transfer_ns > 0)
    add("blocking collectives' transfers hidden (perfect overlap)", {.transfers_hidden = true});
  if (path->what_if.size() > 1) {
    if (const std::optional<int64_t> span = replay->Predict(all))
      path->what_if.push_back({"all of the above together", *span, ""});
  }
}

}  // namespace trainscope::analysis
