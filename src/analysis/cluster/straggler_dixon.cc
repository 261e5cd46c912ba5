#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "analysis/cluster/straggler.h"

namespace trainscope::analysis {
namespace {

// n = 3..25: Dixon (1951) / Rorabacher (1991) table, alpha = 0.005.
// n = 26..100: Monte Carlo of the r22 statistic on 400,000 normal samples
// per n (the published tables stop at 25 or 30); the MC reproduces the
// published values for n <= 25 to +-0.006.
constexpr double kCritical[] = {
    /* 3 */ 0.994,  0.926, 0.821, 0.740, 0.680,  // r10
    /* 8 */ 0.725,  0.677, 0.639,                // r11
    /* 11 */ 0.713, 0.675, 0.649,                // r21
    /* 14 */ 0.674, 0.647, 0.624, 0.605, 0.589, 0.575, 0.562, 0.551,
    0.541,          0.532, 0.524, 0.516,
    /* 26 */ 0.510, 0.501, 0.496, 0.490, 0.485, 0.478, 0.473, 0.468,
    0.463,          0.457, 0.455, 0.450,
    /* 38 */ 0.444, 0.444, 0.439, 0.435, 0.431, 0.428, 0.426, 0.423,
    0.420,          0.417, 0.415, 0.412,
    /* 50 */ 0.411, 0.407, 0.404, 0.402, 0.400, 0.397, 0.396, 0.395,
    0.393,          0.391, 0.388, 0.387,
    /* 62 */ 0.385, 0.383, 0.380, 0.380, 0.379, 0.376, 0.374, 0.374,
    0.372,          0.371, 0.371, 0.369,
    /* 74 */ 0.369, 0.366, 0.363, 0.364, 0.361, 0.360, 0.360, 0.358,
    0.357,          0.356, 0.356, 0.354,
    /* 86 */ 0.352, 0.352, 0.352, 0.351, 0.350, 0.347, 0.347, 0.347,
    0.346,          0.345, 0.344, 0.342, 0.343, 0.342, 0.341};

}  // namespace

double DixonCritical(int n) {
  if (n < 3 || n > 100) return 0;
  return kCritical[n - 3];
}

double DixonRatioLow(const std::vector<double>& x) {
  const size_t n = x.size();
  if (n < 3) return 0;
  double num = 0;
  double den = 0;
  if (n <= 7) {
    num = x[1] - x[0];
    den = x[n - 1] - x[0];
  } else if (n <= 10) {
    num = x[1] - x[0];
    den = x[n - 2] - x[0];
  } else if (n <= 13) {
    num = x[2] - x[0];
    den = x[n - 2] - x[0];
  } else {
    num = x[2] - x[0];
    den = x[n - 3] - x[0];
  }
  return den > 0 ? num / den : 0;
}

bool SmallestIsOutlier(std::vector<double> values) {
  const size_t n = values.size();
  if (n < 3) return false;
  std::sort(values.begin(), values.end());
  if (n <= 100) return DixonRatioLow(values) > DixonCritical(static_cast<int>(n));
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(n);
  double var = 0;
  for (double v : values) var += (v - mean) * (v - mean);
  const double sigma = std::sqrt(var / static_cast<double>(n));
  // msprof-analyze: the minimum is the slow rank when it lies below
  // mean - 3 sigma, or when some other time lies above mean + 3 sigma.
  return sigma > 0 && (values.front() < mean - 3 * sigma || values.back() > mean + 3 * sigma);
}

bool LargestIsOutlier(std::vector<double> values) {
  for (double& v : values) v = -v;
  return SmallestIsOutlier(std::move(values));
}

}  // namespace trainscope::analysis
