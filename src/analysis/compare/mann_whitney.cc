#include "analysis/compare/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace trainscope::analysis {
namespace {

// Twice the mid-rank of every value of |all| (1-based ranks; ties share the
// mean of their ranks): whole numbers, so the exact distribution can count
// rank sums. |*tie_term|: the sum of t^3 - t over groups of t ties.
std::vector<int64_t> DoubledMidRanks(const std::vector<double>& all, double* tie_term) {
  std::vector<size_t> order(all.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return all[a] < all[b]; });
  std::vector<int64_t> doubled(all.size());
  *tie_term = 0;
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j < order.size() && all[order[j]] == all[order[i]]) ++j;
    // Ranks i+1 .. j: their mean times two is (i + 1 + j).
    for (size_t k = i; k < j; ++k) doubled[order[k]] = static_cast<int64_t>(i + 1 + j);
    const auto t = static_cast<double>(j - i);
    *tie_term += t * t * t - t;
    i = j;
  }
  return doubled;
}

// P(sum of |pick| of |doubled| >= |observed|) over every way to pick them,
// each equally likely: the permutation distribution of NEW's rank sum.
double RankSumUpperTail(const std::vector<int64_t>& doubled, size_t pick, int64_t observed) {
  const int64_t max_sum = std::accumulate(doubled.begin(), doubled.end(), int64_t{0});
  // ways[k][s]: subsets of k items with doubled rank sum s.
  std::vector<std::vector<double>> ways(pick + 1,
                                        std::vector<double>(static_cast<size_t>(max_sum) + 1, 0));
  ways[0][0] = 1;
  for (const int64_t r : doubled) {
    for (size_t k = pick; k >= 1; --k) {
      std::vector<double>& to = ways[k];
      const std::vector<double>& from = ways[k - 1];
      for (int64_t s = max_sum; s >= r; --s) {
        to[static_cast<size_t>(s)] += from[static_cast<size_t>(s - r)];
      }
    }
  }
  double total = 0, upper = 0;
  for (int64_t s = 0; s <= max_sum; ++s) {
    const double w = ways[pick][static_cast<size_t>(s)];
    total += w;
    if (s >= observed) upper += w;
  }
  return total > 0 ? upper / total : 1.0;
}

double RankSumBinomial(size_t n, size_t k) {
  double c = 1;
  for (size_t i = 1; i <= k; ++i) c = c * static_cast<double>(n - k + i) / static_cast<double>(i);
  return c;
}

}  // namespace

RankSumTest MannWhitneyGreater(const std::vector<double>& base, const std::vector<double>& next) {
  RankSumTest t;
  t.n_base = base.size();
  t.n_next = next.size();
  if (base.empty() || next.empty()) return t;
  std::vector<double> all = base;
  all.insert(all.end(), next.begin(), next.end());
  double tie_term = 0;
  const std::vector<int64_t> doubled = DoubledMidRanks(all, &tie_term);
  int64_t next_doubled_sum = 0;
  for (size_t i = base.size(); i < all.size(); ++i) next_doubled_sum += doubled[i];
  const auto n1 = static_cast<double>(t.n_base), n2 = static_cast<double>(t.n_next);
  const double n = n1 + n2;
  t.u = static_cast<double>(next_doubled_sum) / 2.0 - n2 * (n2 + 1) / 2.0;
  t.min_p_value = 1.0 / RankSumBinomial(all.size(), t.n_next);
  if (all.size() <= kExactRankSumSamples) {
    t.exact = true;
    t.p_value = RankSumUpperTail(doubled, t.n_next, next_doubled_sum);
    return t;
  }
  const double mean = n1 * n2 / 2.0;
  const double variance = n1 * n2 / 12.0 * ((n + 1) - tie_term / (n * (n - 1)));
  if (variance <= 0) {
    t.p_value = 1.0;  // every value tied: no shift either way
    return t;
  }
  const double z = (t.u - mean - 0.5) / std::sqrt(variance);
  t.p_value = std::clamp(0.5 * std::erfc(z / std::sqrt(2.0)), 0.0, 1.0);
  return t;
}

}  // namespace trainscope::analysis
