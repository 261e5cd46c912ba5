#include "analysis/common/statistics.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace trainscope::analysis {

double QuantileSorted(const std::vector<int64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  if (q <= 0) return static_cast<double>(sorted.front());
  if (q >= 1) return static_cast<double>(sorted.back());
  double position = q * static_cast<double>(sorted.size() - 1);
  auto lower = static_cast<size_t>(std::floor(position));
  double fraction = position - static_cast<double>(lower);
  double low = static_cast<double>(sorted[lower]);
  if (lower + 1 >= sorted.size()) return low;
  double high = static_cast<double>(sorted[lower + 1]);
  return low + (high - low) * fraction;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  const size_t mid = values.size() / 2;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(mid);
  std::nth_element(values.begin(), middle, values.end());
  if (values.size() % 2 == 1) return *middle;
  // nth_element leaves the lower half before |middle|: its largest is the
  // other middle value.
  return (*std::max_element(values.begin(), middle) + *middle) / 2;
}

[[gnu::noinline]] double InterpolateOrderStatistics(double low, double high, double fraction) {
  return low + (high - low) * fraction;
}

namespace {

template <class T>
std::vector<double> QuantilesOf(std::vector<T>& values, const std::vector<double>& qs) {
  std::vector<double> out;
  if (values.empty()) {
    out.assign(qs.size(), 0.0);
    return out;
  }
  const size_t n = values.size();
  // Each quantile needs the order statistics at floor(p) and floor(p)+1;
  // ascending qs let each nth_element work on the remaining suffix.
  auto begin = values.begin();
  for (double q : qs) {
    double position = std::clamp(q, 0.0, 1.0) * static_cast<double>(n - 1);
    auto lower = static_cast<size_t>(std::floor(position));
    double fraction = position - static_cast<double>(lower);
    auto lower_it = values.begin() + static_cast<std::ptrdiff_t>(lower);
    if (lower_it >= begin) std::nth_element(begin, lower_it, values.end());
    double low = static_cast<double>(*lower_it);
    double high = low;
    if (lower + 1 < n && fraction > 0) {
      high = static_cast<double>(*std::min_element(lower_it + 1, values.end()));
    }
    out.push_back(InterpolateOrderStatistics(low, high, fraction));
    begin = lower_it;
  }
  return out;
}

}  // namespace

std::vector<double> Quantiles(std::vector<int64_t>& values, const std::vector<double>& qs) {
  return QuantilesOf(values, qs);
}

std::vector<double> Quantiles(std::vector<double>& values, const std::vector<double>& qs) {
  return QuantilesOf(values, qs);
}

DurationDensityBuilder::DurationDensityBuilder(int64_t min_ns, int64_t max_ns,
                                               int bins_per_decade) {
  density_.bins_per_decade = bins_per_decade;
  density_.min_ns = min_ns;
  density_.max_ns = max_ns;
  log_min_ = std::log10(static_cast<double>(min_ns));
  const double log_max = std::log10(static_cast<double>(max_ns));
  const int bin_count = static_cast<int>(std::lround((log_max - log_min_) * bins_per_decade));
  density_.bins.resize(static_cast<size_t>(bin_count));
  for (int i = 0; i < bin_count; ++i) {
    density_.bins[i].lo_ns = std::pow(10.0, log_min_ + static_cast<double>(i) / bins_per_decade);
    density_.bins[i].hi_ns =
        std::pow(10.0, log_min_ + static_cast<double>(i + 1) / bins_per_decade);
  }
  // Each bin's first duration, searched with the logarithm itself, so that
  // Add's bins are BinByLogarithm's: the bin grows with the duration (log10
  // is monotonic, and two integer durations apart by one differ in log10 by
  // far more than its rounding below 2^53), so a bin's durations are one
  // run of integers.
  for (int i = 1; i < bin_count; ++i) {
    int64_t low = first_of_bin_.empty() ? min_ns : first_of_bin_.back();
    int64_t high = max_ns;  // BinByLogarithm(high - 1) is the last bin, >= i
    while (low < high) {
      const int64_t middle = low + (high - low) / 2;
      if (BinByLogarithm(middle) >= i) {
        high = middle;
      } else {
        low = middle + 1;
      }
    }
    first_of_bin_.push_back(low);
  }
  const auto edges_at_or_below = [&](int64_t d) {
    return static_cast<uint32_t>(std::upper_bound(first_of_bin_.begin(), first_of_bin_.end(), d) -
                                 first_of_bin_.begin());
  };
  for (size_t w = 1; w < edges_below_width_.size(); ++w) {
    const int64_t low = int64_t{1} << (w - 1);  // durations of bit width w: [low, 2 low - 1]
    const int64_t high = low + (low - 1);
    edges_below_width_[w] = edges_at_or_below(low);
    edges_per_octave_ =
        std::max<size_t>(edges_per_octave_, edges_at_or_below(high) - edges_below_width_[w]);
  }
  first_of_bin_.resize(first_of_bin_.size() + edges_per_octave_, INT64_MAX);
}

int DurationDensityBuilder::BinByLogarithm(int64_t duration) const {
  const int bin_count = static_cast<int>(density_.bins.size());
  const double position =
      (std::log10(static_cast<double>(duration)) - log_min_) * density_.bins_per_decade;
  auto index = static_cast<int>(std::floor(position + 1e-9));
  if (index < 0) index = 0;
  if (index >= bin_count) index = bin_count - 1;
  return index;
}

void DurationDensityBuilder::Add(int64_t duration) {
  ++added_;
  if (duration < density_.min_ns) {
    ++density_.below_min;
    return;
  }
  if (duration >= density_.max_ns) {
    ++density_.above_max;
    return;
  }
  ++density_.bins[BinOf(duration)].count;
}

size_t DurationDensityBuilder::BinOf(int64_t duration) const {
  const int width = duration > 0 ? std::bit_width(static_cast<uint64_t>(duration)) : 0;
  const size_t below = edges_below_width_[static_cast<size_t>(width)];
  const int64_t* const above = first_of_bin_.data() + below;
  size_t index = below;
  for (size_t k = 0; k < edges_per_octave_; ++k) index += above[k] <= duration ? 1 : 0;
  return index;
}

DurationDensity DurationDensityBuilder::Finish() && {
  if (added_ > 0) {
    const double total = static_cast<double>(added_);
    const double width_decades = 1.0 / density_.bins_per_decade;
    for (auto& bin : density_.bins) {
      bin.density_per_decade = static_cast<double>(bin.count) / total / width_decades;
    }
  }
  return std::move(density_);
}

DurationDensity ComputeDurationDensity(const std::vector<int64_t>& durations_ns, int64_t min_ns,
                                       int64_t max_ns, int bins_per_decade) {
  DurationDensityBuilder density(min_ns, max_ns, bins_per_decade);
  for (const int64_t duration : durations_ns) density.Add(duration);
  return std::move(density).Finish();
}

}  // namespace trainscope::analysis
