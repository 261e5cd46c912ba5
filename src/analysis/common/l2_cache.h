// A rank's L2 cache rates from l2_cache.csv (Ascend, experimental_config
// l2_cache=True), summarised over the whole capture: the file has no step
// column.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/rank_profile.h"

namespace trainscope::analysis {

// One op name's tasks with a known hit rate.
struct L2CacheOp {
  std::string name;
  int64_t tasks = 0;         // tasks of this name with a hit rate
  double mean_hit_rate = 0;  // their mean, a fraction
  bool operator==(const L2CacheOp&) const = default;
};

struct L2CacheSummary {
  int64_t tasks = 0;                       // rows read
  int64_t tasks_with_hit_rate = 0;         // rows whose hit rate is known (not N/A)
  std::optional<double> mean_hit_rate;     // over those rows; unknown when none
  std::optional<double> mean_victim_rate;  // over the rows with a victim rate
  // The op names' mean hit rates weighted by their kernels' total device
  // time (names joined to the rank's device events); unknown when no name
  // with a hit rate has a kernel of positive time.
  std::optional<double> time_weighted_hit_rate;
  std::vector<L2CacheOp> lowest_hit_ops;  // up to kL2LowestOps, lowest mean first
  bool operator==(const L2CacheSummary&) const = default;
};

inline constexpr size_t kL2LowestOps = 5;

// nullopt when the rank has no l2_cache.csv.
std::optional<L2CacheSummary> SummarizeL2Cache(const model::RankProfile& profile);

}  // namespace trainscope::analysis
