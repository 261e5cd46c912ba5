#include "analysis/cluster/straggler.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>

#include "analysis/common/statistics.h"

namespace trainscope::analysis {
namespace {

struct Member {
  int32_t rank_index;
  int32_t op_index;
};

// Collective instances seen by at least two ranks, keyed by (step, key).
// Send/receive between pipeline stages is left out: who waits there is set
// by the schedule (the downstream stage waits for the upstream one), not by
// a slow rank; the pipeline findings measure it.
std::vector<std::vector<Member>> MatchInstances(const std::vector<RankComm>& ranks) {
  std::unordered_map<std::string, size_t> index;
  std::vector<std::vector<Member>> instances;
  for (size_t r = 0; r < ranks.size(); ++r) {
    const std::vector<CommInstance>& ops = ranks[r].ops;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].type == CollectiveType::kP2p) continue;
      std::string key = fmt::format("{}|{}", ops[i].step, ops[i].key);
      auto [it, inserted] = index.emplace(std::move(key), instances.size());
      if (inserted) instances.emplace_back();
      instances[it->second].push_back({static_cast<int32_t>(r), static_cast<int32_t>(i)});
    }
  }
  std::erase_if(instances, [](const std::vector<Member>& m) { return m.size() < 2; });
  return instances;
}

// The mean step time of |step| over the ranks that have it (last end minus
// first start of their device events); 0 when none has it.
double MeanStepNs(const std::vector<RankComm>& ranks, int32_t step) {
  double sum = 0;
  int n = 0;
  for (const RankComm& rank : ranks) {
    for (const RankStepComm& s : rank.steps) {
      if (s.step != step || s.last_end_ns <= s.first_start_ns) continue;
      sum += static_cast<double>(s.last_end_ns - s.first_start_ns);
      ++n;
    }
  }
  return n > 0 ? sum / n : 0;
}

// Per step, the matched instances of that step, in no particular order.
using InstancesOfSteps = std::map<int32_t, std::vector<const std::vector<Member>*>>;
InstancesOfSteps InstancesByStep(const std::vector<RankComm>& ranks,
                                 const std::vector<std::vector<Member>>& instances) {
  InstancesOfSteps by_step;
  for (const std::vector<Member>& inst : instances) {
    const CommInstance& op = ranks[inst.front().rank_index].ops[inst.front().op_index];
    by_step[op.step].push_back(&inst);
  }
  return by_step;
}

// Ranks sorted by score, descending; ties by rank.
std::vector<std::pair<int32_t, double>> SortedScores(std::vector<std::pair<int32_t, double>> s) {
  std::erase_if(s, [](const auto& p) { return p.second <= 0; });
  std::sort(s.begin(), s.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  return s;
}

}  // namespace

StragglerOptions StragglerOptionsOf(const FindingThresholds& t) {
  StragglerOptions o;
  o.min_flag_share = t.straggler_min_flag_share;
  o.min_instances = std::llround(t.straggler_min_instances);
  o.min_last_share = t.straggler_min_last_share;
  o.chance_p = t.straggler_chance_p;
  o.min_lateness_ns = std::llround(t.straggler_min_lateness_us * 1e3);
  o.min_step_share = t.straggler_min_step_share;
  o.start_late_share = t.straggler_start_late_pct / 100;
  return o;
}

namespace {

const CommInstance& Op(const std::vector<RankComm>& ranks, const Member& m) {
  return ranks[m.rank_index].ops[m.op_index];
}

// Method (c): per step, the step's first collective (the instance with the
// earliest median start); its last rank is flagged when its start is an
// outlier among the ranks' and it is at least start_late_share of the step
// after the median start. Fills late_start_flags and mean_start_lateness_ns.
int64_t DetectLateStarts(const std::vector<RankComm>& ranks, const InstancesOfSteps& by_step,
                         const StragglerOptions& options, ClusterAnalysis* cluster) {
  const size_t n_ranks = ranks.size();
  std::vector<double> lateness_sum(n_ranks, 0);
  std::vector<int64_t> tested(n_ranks, 0);
  int64_t steps = 0;
  std::vector<double> starts;
  for (const auto& [step, list] : by_step) {
    const std::vector<Member>* first = nullptr;
    double first_median = 0;
    for (const std::vector<Member>* inst : list) {
      if (inst->size() < 3) continue;  // an outlier needs three arrivals
      starts.clear();
      for (const Member& m : *inst) starts.push_back(static_cast<double>(Op(ranks, m).start_ns));
      const double median = Median(starts);
      if (first == nullptr || median < first_median) {
        first = inst;
        first_median = median;
      }
    }
    const double step_ns = MeanStepNs(ranks, step);
    if (first == nullptr || step_ns <= 0) continue;
    ++steps;
    starts.clear();
    size_t latest = 0;
    for (size_t m = 0; m < first->size(); ++m) {
      starts.push_back(static_cast<double>(Op(ranks, (*first)[m]).start_ns));
      if (starts[m] > starts[latest]) latest = m;
      const int32_t r = (*first)[m].rank_index;
      lateness_sum[r] += (starts[m] - first_median) / step_ns;
      ++tested[r];
    }
    const double late = starts[latest] - first_median;
    if (late >= options.start_late_share * step_ns && LargestIsOutlier(starts)) {
      ++cluster->per_rank[(*first)[latest].rank_index].late_start_flags;
    }
  }
  // Lateness is kept as a share of each step and shown against the mean
  // step: steps of different lengths weigh alike.
  for (size_t r = 0; r < n_ranks; ++r) {
    cluster->per_rank[r].start_steps_compared = tested[r];
    cluster->per_rank[r].mean_start_lateness_ns =
        tested[r] ? lateness_sum[r] / static_cast<double>(tested[r]) * cluster->mean_step_time_ns
                  : 0;
  }
  return steps;
}

// Method (d): per step each rank's total time in the step's matched
// collectives; the smallest is flagged when it is an outlier. Fills
// least_comm_flags.
int64_t DetectLeastCommunication(const std::vector<RankComm>& ranks,
                                 const InstancesOfSteps& by_step, ClusterAnalysis* cluster) {
  int64_t steps = 0;
  for (const auto& [step, list] : by_step) {
    std::map<int32_t, double> total;  // rank index -> ns
    for (const std::vector<Member>* inst : list) {
      for (const Member& m : *inst)
        total[m.rank_index] += static_cast<double>(Op(ranks, m).duration_ns);
    }
    if (total.size() < 3) continue;
    ++steps;
    for (const auto& [rank_index, ns] : total) ++cluster->per_rank[rank_index].comm_steps_compared;
    std::vector<double> values;
    int32_t least = total.begin()->first;
    for (const auto& [rank_index, ns] : total) {
      values.push_back(ns);
      if (ns < total[least]) least = rank_index;
    }
    if (SmallestIsOutlier(values)) ++cluster->per_rank[least].least_comm_flags;
  }
  return steps;
}

// A per-step method's verdict: the scores are the steps each rank was
// flagged in (|flags|); a straggler is flagged in at least |share| of the
// method's tested steps, and at least once.
void VoteBySteps(const ClusterAnalysis& cluster, double share, int64_t RankClusterStats::*flags,
                 StragglerMethod* method) {
  std::vector<std::pair<int32_t, double>> scores;
  for (const RankClusterStats& row : cluster.per_rank) {
    scores.emplace_back(row.rank, static_cast<double>(row.*flags));
  }
  method->scores = SortedScores(scores);
  const auto tested = static_cast<double>(method->instances_tested);
  for (const auto& [rank, count] : method->scores) {
    if (tested > 0 && count >= 1 && count >= share * tested) method->ranks.push_back(rank);
  }
}

// Method (e): per group of ranks doing the same work, the rank whose
// computation is the outlier above the others, by at least
// start_late_share of the mean step (the others wait that long for it).
void DetectComputeImbalance(const std::vector<RankComputation>& computation,
                            const StragglerOptions& options, ClusterAnalysis* cluster) {
  StragglerMethod& e = cluster->by_compute;
  std::map<int32_t, std::vector<const RankComputation*>> groups;
  for (const RankComputation& r : computation) {
    if (r.computation_ns > 0) groups[r.group].push_back(&r);
  }
  for (const auto& [group, members] : groups) {
    if (members.size() < 3) continue;  // an outlier needs three values
    ++e.instances_tested;
    std::vector<double> values;
    const RankComputation* slowest = members.front();
    for (const RankComputation* r : members) {
      values.push_back(static_cast<double>(r->computation_ns));
      if (r->computation_ns > slowest->computation_ns) slowest = r;
    }
    const double excess = static_cast<double>(slowest->computation_ns) - Median(values);
    if (excess < options.start_late_share * cluster->mean_step_time_ns ||
        !LargestIsOutlier(values)) {
      continue;
    }
    for (RankClusterStats& row : cluster->per_rank) {
      if (row.rank == slowest->rank) row.excess_computation_ns = static_cast<int64_t>(excess);
    }
    e.ranks.push_back(slowest->rank);
    e.scores.emplace_back(slowest->rank, excess / 1e6);
  }
}

// The ranks named by the most methods, most votes first, then by rank.
std::vector<int32_t> MostNamed(const std::vector<const StragglerMethod*>& methods) {
  std::map<int32_t, int> votes;
  for (const StragglerMethod* method : methods) {
    for (int32_t rank : method->ranks) ++votes[rank];
  }
  int best = 0;
  for (const auto& [rank, n] : votes) best = std::max(best, n);
  std::vector<int32_t> out;
  for (const auto& [rank, n] : votes) {
    if (n == best) out.push_back(rank);
  }
  return out;
}

}  // namespace

double BinomialUpperTail(int64_t n, int64_t k, double p) {
  if (k <= 0) return 1.0;
  if (k > n || p <= 0) return 0.0;
  if (p >= 1) return 1.0;
  const double log_p = std::log(p);
  const double log_q = std::log1p(-p);
  const auto nd = static_cast<double>(n);
  double tail = 0;
  for (int64_t x = k; x <= n; ++x) {
    const auto xd = static_cast<double>(x);
    const double log_term = std::lgamma(nd + 1) - std::lgamma(xd + 1) - std::lgamma(nd - xd + 1) +
                            xd * log_p + (nd - xd) * log_q;
    tail += std::exp(log_term);
  }
  return std::min(1.0, tail);
}

void DetectStragglers(const std::vector<RankComm>& ranks, const StragglerOptions& options,
                      ClusterAnalysis* cluster, const std::vector<RankComputation>& computation) {
  const std::vector<std::vector<Member>> instances = MatchInstances(ranks);
  const size_t n_ranks = ranks.size();
  std::vector<int64_t> flags(n_ranks, 0), last(n_ranks, 0), participated(n_ranks, 0);
  std::vector<double> lateness_sum(n_ranks, 0);
  // Per rank, the expected number of times it is last by chance: the sum of
  // 1 / participants over its instances.
  std::vector<double> chance_last(n_ranks, 0);
  int64_t tested_a = 0;
  int64_t tested_b = 0;
  std::vector<double> durations, starts;
  for (const std::vector<Member>& inst : instances) {
    durations.clear();
    starts.clear();
    size_t shortest = 0;
    size_t latest = 0;
    for (size_t m = 0; m < inst.size(); ++m) {
      const CommInstance& op = ranks[inst[m].rank_index].ops[inst[m].op_index];
      durations.push_back(static_cast<double>(op.duration_ns));
      starts.push_back(static_cast<double>(op.start_ns));
      if (durations[m] < durations[shortest]) shortest = m;
      if (starts[m] > starts[latest]) latest = m;
    }
    // (a) needs three values for a ratio test.
    if (inst.size() >= 3) {
      ++tested_a;
      if (SmallestIsOutlier(durations)) ++flags[inst[shortest].rank_index];
    }
    ++tested_b;
    ++last[inst[latest].rank_index];
    const double median = Median(starts);
    for (size_t m = 0; m < inst.size(); ++m) {
      lateness_sum[inst[m].rank_index] += starts[m] - median;
      ++participated[inst[m].rank_index];
      chance_last[inst[m].rank_index] += 1.0 / static_cast<double>(inst.size());
    }
  }

  std::vector<std::pair<int32_t, double>> a_scores, b_scores;
  for (size_t r = 0; r < n_ranks; ++r) {
    RankClusterStats& row = cluster->per_rank[r];
    row.instances_compared = participated[r];
    row.shortest_flags = flags[r];
    row.last_arrivals = last[r];
    row.mean_lateness_ns =
        participated[r] ? lateness_sum[r] / static_cast<double>(participated[r]) : 0;
    a_scores.emplace_back(row.rank, static_cast<double>(flags[r]));
    b_scores.emplace_back(
        row.rank,
        participated[r] ? static_cast<double>(last[r]) / static_cast<double>(participated[r]) : 0);
  }

  StragglerMethod& a = cluster->by_shortest_comm;
  a.id = "shortest-communication";
  a.instances_tested = tested_a;
  a.scores = SortedScores(a_scores);
  a.rule = fmt::format(
      "msprof-analyze slow_rank: per collective instance the rank with the shortest time is the "
      "suspect when Dixon's Q-test (99.5%, n <= 100) or 3-sigma (n > 100) marks it an outlier; a "
      "straggler is suspect in >= {:.0f}% of the tested instances (and >= {})",
      options.min_flag_share * 100, options.min_instances);
  for (const auto& [rank, count] : a.scores) {
    if (count >= static_cast<double>(options.min_instances) &&
        count >= options.min_flag_share * static_cast<double>(tested_a)) {
      a.ranks.push_back(rank);
    }
  }

  StragglerMethod& b = cluster->by_last_arrival;
  b.id = "last-arrival";
  b.instances_tested = tested_b;
  b.scores = SortedScores(b_scores);
  // The bar scales with the ranks that take part in an instance, not the
  // job's: when only two ranks have kernels (the Qwen sample's ranks 1 and 3
  // lack kernel_details.csv) one of them is always last, so 2/4 would flag
  // a coin toss.
  size_t participants = 0;
  for (const std::vector<Member>& inst : instances)
    participants = std::max(participants, inst.size());
  const double share =
      std::min(0.9, std::max(options.min_last_share,
                             participants > 0 ? 2.0 / static_cast<double>(participants) : 1.0));
  b.rule = fmt::format(
      "arrival order (TraceLens/HTA): per collective instance the rank that starts it last; a "
      "straggler arrives last in >= {:.0f}% of its instances and is on average >= {:.0f} µs later "
      "than the median rank, and being last that often has a chance probability below {:.2g} "
      "(binomial, every participant equally likely last)",
      share * 100, static_cast<double>(options.min_lateness_ns) / 1000.0,
      options.chance_p / static_cast<double>(std::max<size_t>(1, n_ranks)));
  for (const auto& [rank, s] : b.scores) {
    const auto id = rank;  // clang 14 cannot capture a structured binding
    const auto it = std::find_if(cluster->per_rank.begin(), cluster->per_rank.end(),
                                 [id](const RankClusterStats& x) { return x.rank == id; });
    const auto r = static_cast<size_t>(it - cluster->per_rank.begin());
    const bool unlikely_by_chance =
        r < n_ranks && participated[r] > 0 &&
        BinomialUpperTail(participated[r], last[r],
                          chance_last[r] / static_cast<double>(participated[r])) <
            options.chance_p / static_cast<double>(n_ranks);
    if (s >= share && tested_b >= options.min_instances && it != cluster->per_rank.end() &&
        it->mean_lateness_ns >= static_cast<double>(options.min_lateness_ns) &&
        unlikely_by_chance) {
      b.ranks.push_back(rank);
    }
  }

  StragglerMethod& c = cluster->by_late_start;
  c.id = "late-start";
  // Methods (c) and (d) vote once per step.
  const InstancesOfSteps by_step = InstancesByStep(ranks, instances);
  c.instances_tested = DetectLateStarts(ranks, by_step, options, cluster);
  c.rule = fmt::format(
      "late start (the methodology's step-start barrier): per step the rank that reaches the "
      "step's first collective last, an outlier (Dixon 99.5% / 3-sigma) and >= {:.1f}% of the "
      "step after the median rank; a straggler in >= {:.0f}% of the tested steps",
      options.start_late_share * 100, options.min_step_share * 100);
  VoteBySteps(*cluster, options.min_step_share, &RankClusterStats::late_start_flags, &c);

  StragglerMethod& d = cluster->by_least_comm;
  d.id = "least-communication";
  d.instances_tested = DetectLeastCommunication(ranks, by_step, cluster);
  d.rule = fmt::format(
      "msprof-analyze slow rank by totals: per step each rank's total time in collectives; the "
      "smallest, when Dixon (99.5%) or 3-sigma marks it an outlier, is the rank the others waited "
      "for; a straggler in >= {:.0f}% of the tested steps",
      options.min_step_share * 100);
  VoteBySteps(*cluster, options.min_step_share, &RankClusterStats::least_comm_flags, &d);

  StragglerMethod& e = cluster->by_compute;
  e.id = "compute-imbalance";
  e.rule = fmt::format(
      "compute imbalance: in the compared step, the rank whose computation is an outlier (Dixon "
      "99.5% / 3-sigma) above the other ranks of its pipeline stage by >= {:.1f}% of the step",
      options.start_late_share * 100);
  DetectComputeImbalance(computation, options, cluster);

  cluster->straggler_ranks = MostNamed({&a, &b, &c, &d, &e});
}

}  // namespace trainscope::analysis
