#include "analysis/cluster/critical_path.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <queue>
#include <unordered_map>

#include "core/rank_ranges.h"

namespace trainscope::analysis {
namespace {

// One rank's view of the step: its collectives in start order.
struct RankStep {
  int32_t rank = -1;
  const RankStepComm* step = nullptr;
  std::vector<const CommInstance*> ops;
};

// The rank waited for |op|: its compute covered less than half of it.
bool Blocking(const CommInstance& op) {
  return op.compute_during_ns < 0 || 2 * op.compute_during_ns < op.duration_ns;
}

int64_t Known(int64_t ns) { return std::max<int64_t>(0, ns); }

std::vector<RankStep> RanksOfStep(const std::vector<RankComm>& comm, int32_t step,
                                  std::string* note) {
  std::vector<RankStep> out;
  std::vector<int32_t> without;
  for (const RankComm& rc : comm) {
    const auto s = std::find_if(rc.steps.begin(), rc.steps.end(),
                                [step](const RankStepComm& x) { return x.step == step; });
    if (s == rc.steps.end() || s->compute_after_last_ns < 0 ||
        s->last_end_ns <= s->first_start_ns) {
      without.push_back(rc.rank);
      continue;
    }
    RankStep r{rc.rank, &*s, {}};
    for (const CommInstance& op : rc.ops) {
      if (op.step == step) r.ops.push_back(&op);
    }
    out.push_back(std::move(r));
  }
  if (!without.empty()) {
    *note = fmt::format(
        "rank(s) {} have no usable device timeline of the step (none, or set aside as wrong): the "
        "path runs over the others",
        CompactRankList(without));
  }
  return out;
}

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
  path->segments.push_back(std::move(segment));
}

// One work window back from |state| to the rank's previous blocking
// collective (or its step start); returns that collective's index + 1, 0
// when none.
size_t WalkWork(const RankStep& r, const WalkState& state, CriticalPath* path) {
  const size_t n = r.ops.size();
  int64_t compute = state.next == n ? Known(r.step->compute_after_last_ns)
                                    : Known(r.ops[state.next]->compute_before_ns);
  size_t k = state.next;
  while (k > 0 && !Blocking(*r.ops[k - 1])) {
    compute += Known(r.ops[k - 1]->compute_during_ns) + Known(r.ops[k - 1]->compute_before_ns);
    --k;
  }
  const int64_t from = k == 0
                           ? r.step->first_start_ns
                           : std::min(state.t, r.ops[k - 1]->start_ns + r.ops[k - 1]->duration_ns);
  AddSegment({PathSegmentKind::kWork, r.rank, from, state.t, compute, "", 0}, path);
  return k;
}

void Summarize(CriticalPath* path) {
  std::reverse(path->segments.begin(), path->segments.end());
  std::map<int32_t, int64_t> by_rank;
  for (const PathSegment& s : path->segments) {
    switch (s.kind) {
      case PathSegmentKind::kWork:
        path->compute_ns += s.compute_ns;
        path->idle_ns += s.duration_ns() - s.compute_ns;
        break;
      case PathSegmentKind::kTransfer:
        path->transfer_ns += s.duration_ns();
        ++path->blocking_collectives;
        break;
      case PathSegmentKind::kLateStart:
        path->late_start_ns += s.duration_ns();
        break;
    }
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
    AddSegment({PathSegmentKind::kTransfer, ranks[last.rank].rank, last.t, end, 0,
                fmt::format("{} {}", CollectiveTypeName(op.type), op.key),
                static_cast<int32_t>(members.size())},
               &path);
    state = last;
  }
  const RankStep& first = ranks[state.rank];
  const int64_t path_start = path.segments.empty() ? path.start_ns : path.segments.back().start_ns;
  if (path_start > path.start_ns)
    AddSegment({PathSegmentKind::kLateStart, first.rank, path.start_ns, path_start, 0, "", 0},
               &path);
  Summarize(&path);
  path.computed = true;
  return path;
}

// The replay (AddWhatIfs) from here on.
namespace {

// The step as the replay sees it: per rank its start, the work before each
// of its blocking collectives (in its order) and the tail after the last;
// per collective instance its transfer (median end - last arrival).
struct ReplayGraph {
  struct Rank {
    int32_t rank = -1;
    int64_t start = 0;
    std::vector<std::pair<size_t, int64_t>> seq;  // (instance, work before arriving)
    int64_t tail = 0;
  };
  struct Instance {
    int64_t transfer = 0;
    int64_t measured_end = 0;
    std::vector<size_t> ranks;  // participants (indices into ranks)
  };
  std::vector<Rank> ranks;
  std::vector<Instance> instances;
};

int64_t MedianOf(std::vector<int64_t> values) {
  if (values.empty()) return 0;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  return values[mid];
}

// A collective some participant waited for synchronises all of them: the
// last to arrive may have computed right through its short share of it.
ReplayGraph BuildReplayGraph(const std::vector<RankStep>& steps) {
  ReplayGraph g;
  std::unordered_map<std::string, size_t> index_of;
  std::vector<std::vector<int64_t>> ends, arrivals;
  std::unordered_map<std::string, bool> synchronising;
  for (const RankStep& step : steps) {
    for (const CommInstance* op : step.ops) synchronising[op->key] |= Blocking(*op);
  }
  for (size_t r = 0; r < steps.size(); ++r) {
    ReplayGraph::Rank rank{steps[r].rank, steps[r].step->first_start_ns, {}, 0};
    int64_t cursor = rank.start;
    for (const CommInstance* op : steps[r].ops) {
      if (!synchronising[op->key]) continue;
      auto [it, added] = index_of.emplace(op->key, g.instances.size());
      if (added) {
        g.instances.emplace_back();
        ends.emplace_back();
        arrivals.emplace_back();
      }
      const int64_t end = op->start_ns + std::max<int64_t>(0, op->duration_ns);
      rank.seq.emplace_back(it->second, std::max<int64_t>(0, op->start_ns - cursor));
      g.instances[it->second].ranks.push_back(r);
      ends[it->second].push_back(end);
      arrivals[it->second].push_back(op->start_ns);
      cursor = std::max(cursor, end);
    }
    rank.tail = std::max<int64_t>(0, steps[r].step->last_end_ns - cursor);
    g.ranks.push_back(std::move(rank));
  }
  for (size_t i = 0; i < g.instances.size(); ++i) {
    const int64_t end = MedianOf(ends[i]);
    const int64_t last = *std::max_element(arrivals[i].begin(), arrivals[i].end());
    g.instances[i].measured_end = end;
    g.instances[i].transfer = std::max<int64_t>(0, end - last);
  }
  return g;
}

// The span (earliest start to latest end) of |g| re-timed: an instance
// ends at its participants' latest arrival plus its transfer; nullopt when
// the ranks' orders of their collectives cannot all be kept.
std::optional<int64_t> Replay(const ReplayGraph& g) {
  std::vector<int64_t> t(g.ranks.size());
  std::vector<size_t> pos(g.ranks.size(), 0);
  std::vector<size_t> at_head(g.instances.size(), 0);
  using Ready = std::pair<int64_t, size_t>;  // (measured end, instance)
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
  auto arrive = [&](size_t r) {
    if (pos[r] >= g.ranks[r].seq.size()) return;
    const size_t i = g.ranks[r].seq[pos[r]].first;
    if (++at_head[i] == g.instances[i].ranks.size()) ready.emplace(g.instances[i].measured_end, i);
  };
  int64_t start = INT64_MAX;
  for (size_t r = 0; r < g.ranks.size(); ++r) {
    t[r] = g.ranks[r].start;
    start = std::min(start, t[r]);
    arrive(r);
  }
  size_t done = 0;
  while (!ready.empty()) {
    const size_t i = ready.top().second;
    ready.pop();
    int64_t last = INT64_MIN;
    for (size_t r : g.instances[i].ranks)
      last = std::max(last, t[r] + g.ranks[r].seq[pos[r]].second);
    const int64_t end = last + g.instances[i].transfer;
    for (size_t r : g.instances[i].ranks) {
      t[r] = end;
      ++pos[r];
      arrive(r);
    }
    ++done;
  }
  if (done != g.instances.size()) return std::nullopt;
  int64_t finish = INT64_MIN;
  for (size_t r = 0; r < g.ranks.size(); ++r) finish = std::max(finish, t[r] + g.ranks[r].tail);
  return finish - start;
}

// |rank|'s work windows and tail replaced by the median of the other
// participants' windows before the same collectives (peers do the same work).
void AtPeersPace(size_t rank, ReplayGraph* g) {
  std::vector<std::unordered_map<size_t, int64_t>> work_of(g->ranks.size());
  for (size_t r = 0; r < g->ranks.size(); ++r) {
    for (const auto& [instance, work] : g->ranks[r].seq) work_of[r][instance] = work;
  }
  for (auto& [instance, work] : g->ranks[rank].seq) {
    std::vector<int64_t> peers;
    for (size_t r : g->instances[instance].ranks) {
      if (r != rank) peers.push_back(work_of[r][instance]);
    }
    if (!peers.empty()) work = MedianOf(std::move(peers));
  }
  std::vector<int64_t> tails;
  for (size_t r = 0; r < g->ranks.size(); ++r) {
    if (r != rank) tails.push_back(g->ranks[r].tail);
  }
  if (!tails.empty()) g->ranks[rank].tail = MedianOf(std::move(tails));
}

}  // namespace

void AddWhatIfs(const std::vector<RankComm>& comm, const std::vector<int32_t>& stragglers,
                CriticalPath* path) {
  if (!path->computed) return;
  std::string ignored;
  const std::vector<RankStep> steps = RanksOfStep(comm, path->step, &ignored);
  const ReplayGraph graph = BuildReplayGraph(steps);
  const std::optional<int64_t> replayed = Replay(graph);
  if (!replayed) {
    path->replay_note = "the ranks' orders of their blocking collectives disagree: no replay";
    return;
  }
  path->replayed_ns = *replayed;
  ReplayGraph all = graph;
  auto add = [path](std::string change, const ReplayGraph& g) {
    if (const std::optional<int64_t> span = Replay(g))
      path->what_if.push_back({std::move(change), *span});
  };
  int64_t first = INT64_MAX;
  for (const ReplayGraph::Rank& r : graph.ranks) first = std::min(first, r.start);
  if (path->late_start_ns > 0) {
    ReplayGraph g = graph;
    for (ReplayGraph::Rank& r : g.ranks) r.start = first;
    for (ReplayGraph::Rank& r : all.ranks) r.start = first;
    add("every rank starts with the first", g);
  }
  for (int32_t straggler : stragglers) {
    for (size_t r = 0; r < graph.ranks.size(); ++r) {
      if (graph.ranks[r].rank != straggler) continue;
      ReplayGraph g = graph;
      AtPeersPace(r, &g);
      AtPeersPace(r, &all);
      add(fmt::format("rank {} works at its peers' median pace", straggler), g);
    }
  }
  if (path->transfer_ns > 0) {
    ReplayGraph g = graph;
    for (ReplayGraph::Instance& i : g.instances) i.transfer = 0;
    for (ReplayGraph::Instance& i : all.instances) i.transfer = 0;
    add("blocking collectives' transfers hidden (perfect overlap)", g);
  }
  if (path->what_if.size() > 1) add("all of the above together", all);
}

}  // namespace trainscope::analysis
