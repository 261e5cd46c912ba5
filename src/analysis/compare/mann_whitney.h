// The Mann-Whitney U (Wilcoxon rank-sum) test, one-sided: is NEW's
// distribution shifted above BASE's? The regression gate's test
// (regression_gate.h, docs/compare.md "Regression gate"): it assumes no
// shape of the distributions, is unmoved by a few outlier steps, and with
// few samples gives the exact p-value instead of an approximation.
#pragma once

#include <optional>
#include <vector>

namespace trainscope::analysis {

struct RankSumTest {
  size_t n_base = 0, n_next = 0;
  // U of NEW: the pairs (base, new) with new > base, ties counting one half.
  double u = 0;
  // P(U >= u) when both sides come from one distribution; nullopt when a
  // side has no sample.
  std::optional<double> p_value;
  bool exact = false;  // from the exact permutation distribution (mid-ranks for ties)
  // The smallest p-value any data of these sizes can give: 1 / C(n_base +
  // n_next, n_base). When it is above the level, no shift can be shown.
  std::optional<double> min_p_value;
};

// Up to kExactRankSumSamples samples in all the p-value is exact (the
// permutation distribution of the rank sum, ties as mid-ranks); above, the
// normal approximation with the tie correction and a continuity correction.
inline constexpr size_t kExactRankSumSamples = 40;

RankSumTest MannWhitneyGreater(const std::vector<double>& base, const std::vector<double>& next);

}  // namespace trainscope::analysis
