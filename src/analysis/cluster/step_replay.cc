#include "analysis/cluster/step_replay.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <unordered_map>

#include "analysis/cluster/step_ranks.h"

namespace trainscope::analysis {
namespace {

using Rank = StepReplay::Rank;
using Instance = StepReplay::Instance;

// The upper middle of an even count: a time some participant measured.
int64_t MedianOf(std::vector<int64_t> values) {
  if (values.empty()) return 0;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  return values[mid];
}

// The span (earliest start to latest end) of the graph re-timed: an
// instance ends at its participants' latest arrival plus its transfer;
// nullopt when the ranks' orders of their collectives cannot all be kept.
std::optional<int64_t> Retime(const std::vector<Rank>& ranks,
                              const std::vector<Instance>& instances) {
  std::vector<int64_t> t(ranks.size());
  std::vector<size_t> pos(ranks.size(), 0);
  std::vector<size_t> at_head(instances.size(), 0);
  using Ready = std::pair<int64_t, size_t>;  // (measured end, instance)
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
  auto arrive = [&](size_t r) {
    if (pos[r] >= ranks[r].seq.size()) return;
    const size_t i = ranks[r].seq[pos[r]].instance;
    if (++at_head[i] == instances[i].ranks.size()) ready.emplace(instances[i].measured_end, i);
  };
  int64_t start = INT64_MAX;
  for (size_t r = 0; r < ranks.size(); ++r) {
    t[r] = ranks[r].start;
    start = std::min(start, t[r]);
    arrive(r);
  }
  size_t done = 0;
  while (!ready.empty()) {
    const size_t i = ready.top().second;
    ready.pop();
    int64_t last = INT64_MIN;
    for (size_t r : instances[i].ranks) last = std::max(last, t[r] + ranks[r].seq[pos[r]].work);
    const int64_t end = last + instances[i].transfer;
    for (size_t r : instances[i].ranks) {
      t[r] = end;
      ++pos[r];
      arrive(r);
    }
    ++done;
  }
  if (done != instances.size()) return std::nullopt;
  int64_t finish = INT64_MIN;
  for (size_t r = 0; r < ranks.size(); ++r) finish = std::max(finish, t[r] + ranks[r].tail);
  return finish - start;
}

// |rank|'s windows and tail replaced by the median of the other
// participants' before the same collectives (peers do the same work), and
// its start by theirs where it started later.
// Reads |measured|, so several ranks at their peers' pace all take the
// measured peers' medians.
void AtPeersPace(size_t rank, const std::vector<Rank>& measured,
                 const std::vector<Instance>& instances, std::vector<Rank>* ranks) {
  std::vector<std::unordered_map<size_t, const Rank::Window*>> window_of(measured.size());
  for (size_t r = 0; r < measured.size(); ++r) {
    for (const Rank::Window& w : measured[r].seq) window_of[r][w.instance] = &w;
  }
  for (Rank::Window& w : (*ranks)[rank].seq) {
    std::vector<int64_t> work, compute;
    for (size_t r : instances[w.instance].ranks) {
      if (r == rank) continue;
      work.push_back(window_of[r][w.instance]->work);
      compute.push_back(window_of[r][w.instance]->compute);
    }
    if (work.empty()) continue;
    w.work = MedianOf(std::move(work));
    w.compute = MedianOf(std::move(compute));
  }
  std::vector<int64_t> starts, tails, tail_computes;
  for (size_t r = 0; r < measured.size(); ++r) {
    if (r == rank) continue;
    starts.push_back(measured[r].start);
    tails.push_back(measured[r].tail);
    tail_computes.push_back(measured[r].tail_compute);
  }
  if (tails.empty()) return;
  // A late start is part of the rank's pace (a straggler by late start).
  (*ranks)[rank].start = std::min((*ranks)[rank].start, MedianOf(std::move(starts)));
  (*ranks)[rank].tail = MedianOf(std::move(tails));
  (*ranks)[rank].tail_compute = MedianOf(std::move(tail_computes));
}

// |saved| of |rank|'s compute taken from its windows and tail in proportion
// to the compute in each (a fused chain runs in every layer's window).
void SaveCompute(int64_t saved, Rank* rank) {
  int64_t total = rank->tail_compute;
  for (const Rank::Window& w : rank->seq) total += w.compute;
  if (total <= 0 || saved <= 0) return;
  const double share = std::min(1.0, static_cast<double>(saved) / static_cast<double>(total));
  auto cut = [share](int64_t* work, int64_t* compute) {
    const auto removed =
        std::min<int64_t>(*work, std::llround(static_cast<double>(*compute) * share));
    *work -= removed;
    *compute -= removed;
  };
  for (Rank::Window& w : rank->seq) cut(&w.work, &w.compute);
  cut(&rank->tail, &rank->tail_compute);
}

// |rank|'s device idle of |kind| removed from its windows and tail (never
// more than the idle a window has), and from before its start, no earlier
// than |earliest_other_start|.
void RemoveHostIdle(HostIdleKind kind, int64_t earliest_other_start, Rank* rank) {
  auto cut = [kind](int64_t* work, int64_t compute, HostIdleTimes* host) {
    int64_t& idle = host->of(kind);
    const int64_t removed = std::clamp<int64_t>(idle, 0, std::max<int64_t>(0, *work - compute));
    *work -= removed;
    idle -= removed;
  };
  for (Rank::Window& w : rank->seq) cut(&w.work, w.compute, &w.host);
  cut(&rank->tail, rank->tail_compute, &rank->tail_host);
  int64_t& before = rank->start_host.of(kind);
  const int64_t earlier = std::max<int64_t>(rank->start - before, earliest_other_start);
  if (earlier < rank->start) rank->start = earlier;
  before = 0;
}

// |from|'s items not yet in |to|, appended: a set kept in first-seen order.
template <class T>
void AppendAbsent(const std::vector<T>& from, std::vector<T>* to) {
  for (const T& item : from) {
    if (std::find(to->begin(), to->end(), item) == to->end()) to->push_back(item);
  }
}

// Each instance both ranks of a sped-up link take part in keeps the
// smallest share of its transfer any such link gives; false when no
// instance has both ranks of any link.
bool SpeedUpLinks(const std::vector<ReplayChange::LinkSpeedup>& links,
                  const std::vector<Rank>& ranks, std::vector<Instance>* instances) {
  bool matched = false;
  for (Instance& i : *instances) {
    double kept = 1.0;
    for (const ReplayChange::LinkSpeedup& link : links) {
      bool src = false, dst = false;
      for (size_t r : i.ranks) {
        src = src || ranks[r].rank == link.src;
        dst = dst || ranks[r].rank == link.dst;
      }
      if (src && dst) kept = std::min(kept, std::clamp(link.kept_share, 0.0, 1.0));
    }
    if (kept < 1.0) {
      matched = true;
      i.transfer = std::llround(static_cast<double>(i.transfer) * kept);
    }
  }
  return matched;
}

}  // namespace

bool ReplayChange::empty() const {
  return start_spread_ns < 0 && at_peers_pace.empty() && !transfers_hidden &&
         transfers_hidden_of.empty() && transfer_kept_share >= 1.0 && compute_saved_ns.empty() &&
         links_sped_up.empty() && host_idle_removed.empty();
}

void ReplayChange::Add(const ReplayChange& other) {
  if (other.start_spread_ns >= 0)
    start_spread_ns = start_spread_ns < 0 ? other.start_spread_ns
                                          : std::min(start_spread_ns, other.start_spread_ns);
  AppendAbsent(other.at_peers_pace, &at_peers_pace);
  transfers_hidden = transfers_hidden || other.transfers_hidden;
  transfer_kept_share = std::min(transfer_kept_share, other.transfer_kept_share);
  AppendAbsent(other.transfers_hidden_of, &transfers_hidden_of);
  for (const auto& [rank, ns] : other.compute_saved_ns) compute_saved_ns[rank] += ns;
  AppendAbsent(other.links_sped_up, &links_sped_up);
  AppendAbsent(other.host_idle_removed, &host_idle_removed);
}

std::optional<StepReplay> StepReplay::Build(const std::vector<RankComm>& comm, int32_t step,
                                            std::string* why) {
  std::string ignored;
  const std::vector<RankStep> steps = RanksOfStep(comm, step, &ignored);
  if (steps.size() < 2) {
    *why = "fewer than two ranks with a usable device timeline of the step: no replay";
    return std::nullopt;
  }
  StepReplay g;
  std::unordered_map<std::string, size_t> index_of;
  std::vector<std::vector<int64_t>> ends, arrivals;
  // A collective some participant waited for synchronises all of them.
  std::unordered_map<std::string, bool> synchronising;
  for (const RankStep& s : steps) {
    for (const CommInstance* op : s.ops) synchronising[op->key] |= Blocking(*op);
  }
  for (size_t r = 0; r < steps.size(); ++r) {
    Rank rank{.rank = steps[r].rank,
              .start = steps[r].step->first_start_ns,
              .host_known = steps[r].host_known};
    for (const HostIdleSpan& span : steps[r].step->host_idle_before_start)
      rank.start_host.Add(span.kind, span.end_ns - span.start_ns);
    int64_t cursor = rank.start;
    int64_t compute = 0;  // since the last synchronising collective
    HostIdleTimes host;   // the same
    for (const CommInstance* op : steps[r].ops) {
      compute += KnownOrZero(op->compute_before_ns);
      host += op->host_idle_before;
      if (!synchronising[op->key]) {
        compute += KnownOrZero(op->compute_during_ns);
        continue;
      }
      auto [it, added] = index_of.emplace(op->key, g.instances_.size());
      if (added) {
        g.instances_.push_back({.type = op->type});
        ends.emplace_back();
        arrivals.emplace_back();
      }
      const int64_t end = op->start_ns + KnownOrZero(op->duration_ns);
      const int64_t work = KnownOrZero(op->start_ns - cursor);
      rank.seq.push_back({it->second, work, std::min(compute, work), host});
      g.instances_[it->second].ranks.push_back(r);
      ends[it->second].push_back(end);
      arrivals[it->second].push_back(op->start_ns);
      cursor = std::max(cursor, end);
      compute = 0;
      host = {};
    }
    rank.tail = KnownOrZero(steps[r].step->last_end_ns - cursor);
    rank.tail_compute =
        std::min(rank.tail, compute + KnownOrZero(steps[r].step->compute_after_last_ns));
    host += steps[r].step->host_idle_after_last;
    rank.tail_host = host;
    g.ranks_.push_back(std::move(rank));
  }
  for (size_t i = 0; i < g.instances_.size(); ++i) {
    const int64_t end = MedianOf(ends[i]);
    const int64_t last = *std::max_element(arrivals[i].begin(), arrivals[i].end());
    g.instances_[i].measured_end = end;
    g.instances_[i].transfer = KnownOrZero(end - last);
  }
  const std::optional<int64_t> span = Retime(g.ranks_, g.instances_);
  if (!span) {
    *why = "the ranks' orders of their blocking collectives disagree: no replay";
    return std::nullopt;
  }
  g.replayed_ns_ = *span;
  return g;
}

std::vector<int32_t> StepReplay::ranks() const {
  std::vector<int32_t> out;
  out.reserve(ranks_.size());
  for (const Rank& r : ranks_) out.push_back(r.rank);
  return out;
}

std::optional<int64_t> StepReplay::Predict(const ReplayChange& change) const {
  std::vector<Rank> ranks = ranks_;
  std::vector<Instance> instances = instances_;
  if (change.start_spread_ns >= 0) {
    int64_t first = INT64_MAX;
    for (const Rank& r : ranks) first = std::min(first, r.start);
    for (Rank& r : ranks) r.start = std::min(r.start, first + change.start_spread_ns);
  }
  for (size_t r = 0; r < ranks.size(); ++r) {
    const int32_t id = ranks[r].rank;
    if (std::find(change.at_peers_pace.begin(), change.at_peers_pace.end(), id) !=
        change.at_peers_pace.end())
      AtPeersPace(r, ranks_, instances_, &ranks);
    if (const auto saved = change.compute_saved_ns.find(id); saved != change.compute_saved_ns.end())
      SaveCompute(saved->second, &ranks[r]);
    for (const auto& [rank, kind] : change.host_idle_removed) {
      if (rank != id) continue;
      if (!ranks_[r].host_known) return std::nullopt;
      int64_t earliest_other = INT64_MAX;
      for (size_t o = 0; o < ranks_.size(); ++o) {
        if (o != r) earliest_other = std::min(earliest_other, ranks_[o].start);
      }
      RemoveHostIdle(kind, earliest_other, &ranks[r]);
    }
  }
  if (!change.links_sped_up.empty() && !SpeedUpLinks(change.links_sped_up, ranks_, &instances))
    return std::nullopt;
  for (Instance& i : instances) {
    const auto& types = change.transfers_hidden_of;
    if (change.transfers_hidden || std::find(types.begin(), types.end(), i.type) != types.end()) {
      i.transfer = 0;
    } else if (change.transfer_kept_share < 1.0) {
      const double kept = std::max(0.0, change.transfer_kept_share);
      i.transfer = std::llround(static_cast<double>(i.transfer) * kept);
    }
  }
  return Retime(ranks, instances);
}

}  // namespace trainscope::analysis
