#include "analysis/cluster/straggler.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
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
std::vector<std::vector<Member>> MatchInstances(const std::vector<RankComm>& ranks) {
  std::unordered_map<std::string, size_t> index;
  std::vector<std::vector<Member>> instances;
  for (size_t r = 0; r < ranks.size(); ++r) {
    const std::vector<CommInstance>& ops = ranks[r].ops;
    for (size_t i = 0; i < ops.size(); ++i) {
      std::string key = fmt::format("{}|{}", ops[i].step, ops[i].key);
      auto [it, inserted] = index.emplace(std::move(key), instances.size());
      if (inserted) instances.emplace_back();
      instances[it->second].push_back({static_cast<int32_t>(r), static_cast<int32_t>(i)});
    }
  }
  std::erase_if(instances, [](const std::vector<Member>& m) { return m.size() < 2; });
  return instances;
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
  o.min_lateness_ns = std::llround(t.straggler_min_lateness_us * 1e3);
  return o;
}

void DetectStragglers(const std::vector<RankComm>& ranks, const StragglerOptions& options,
                      ClusterAnalysis* cluster) {
  const std::vector<std::vector<Member>> instances = MatchInstances(ranks);
  const size_t n_ranks = ranks.size();
  std::vector<int64_t> flags(n_ranks, 0), last(n_ranks, 0), participated(n_ranks, 0);
  std::vector<double> lateness_sum(n_ranks, 0);
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
    }
  }

  std::vector<std::pair<int32_t, double>> a_scores, b_scores;
  for (size_t r = 0; r < n_ranks; ++r) {
    RankClusterStats& row = cluster->per_rank[r];
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
      "straggler arrives last in >= {:.0f}% of its instances and is on average >= {:.0f} us later "
      "than the median rank",
      share * 100, static_cast<double>(options.min_lateness_ns) / 1000.0);
  for (const auto& [rank, s] : b.scores) {
    const auto id = rank;  // clang 14 cannot capture a structured binding
    const auto it = std::find_if(cluster->per_rank.begin(), cluster->per_rank.end(),
                                 [id](const RankClusterStats& x) { return x.rank == id; });
    if (s >= share && tested_b >= options.min_instances && it != cluster->per_rank.end() &&
        it->mean_lateness_ns >= static_cast<double>(options.min_lateness_ns)) {
      b.ranks.push_back(rank);
    }
  }

  // Both methods agree: those ranks; otherwise whatever either found.
  std::vector<int32_t>& out = cluster->straggler_ranks;
  out.clear();
  for (int32_t r : a.ranks) {
    if (std::find(b.ranks.begin(), b.ranks.end(), r) != b.ranks.end()) out.push_back(r);
  }
  if (out.empty()) {
    out = a.ranks;
    for (int32_t r : b.ranks) {
      if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
    }
  }
}

}  // namespace trainscope::analysis
