#include "analysis/common/l2_cache.h"

#include <algorithm>
#include <unordered_map>

namespace trainscope::analysis {
namespace {

struct NameRates {
  int64_t tasks = 0;
  double hit_sum = 0;
  int64_t kernel_ns = 0;
};

}  // namespace

std::optional<L2CacheSummary> SummarizeL2Cache(const model::RankProfile& profile) {
  if (!profile.has_l2_cache) return std::nullopt;
  L2CacheSummary summary;
  summary.tasks = static_cast<int64_t>(profile.l2_cache.size());
  double hit_sum = 0;
  double victim_sum = 0;
  int64_t victims = 0;
  std::unordered_map<StringId, NameRates> by_name;
  for (const model::L2CacheRow& row : profile.l2_cache) {
    if (row.victim_rate) {
      victim_sum += *row.victim_rate;
      ++victims;
    }
    if (!row.hit_rate) continue;
    ++summary.tasks_with_hit_rate;
    hit_sum += *row.hit_rate;
    NameRates& rates = by_name[row.op_name];
    ++rates.tasks;
    rates.hit_sum += *row.hit_rate;
  }
  if (summary.tasks_with_hit_rate > 0) {
    summary.mean_hit_rate = hit_sum / static_cast<double>(summary.tasks_with_hit_rate);
  }
  if (victims > 0) summary.mean_victim_rate = victim_sum / static_cast<double>(victims);
  if (by_name.empty()) return summary;

  const model::DeviceEvents& events = profile.device_events;
  for (size_t i = 0; i < events.size(); ++i) {
    auto it = by_name.find(events.name[i]);
    if (it != by_name.end()) it->second.kernel_ns += events.duration_ns[i];
  }
  double weighted = 0;
  double weight = 0;
  std::vector<L2CacheOp> ops;
  ops.reserve(by_name.size());
  for (const auto& [name, rates] : by_name) {
    const double mean = rates.hit_sum / static_cast<double>(rates.tasks);
    ops.push_back(L2CacheOp{std::string(profile.strings.Get(name)), rates.tasks, mean});
    if (rates.kernel_ns > 0) {
      weighted += mean * static_cast<double>(rates.kernel_ns);
      weight += static_cast<double>(rates.kernel_ns);
    }
  }
  if (weight > 0) summary.time_weighted_hit_rate = weighted / weight;
  std::sort(ops.begin(), ops.end(), [](const L2CacheOp& a, const L2CacheOp& b) {
    if (a.mean_hit_rate != b.mean_hit_rate) return a.mean_hit_rate < b.mean_hit_rate;
    return a.name < b.name;
  });
  if (ops.size() > kL2LowestOps) ops.resize(kL2LowestOps);
  summary.lowest_hit_ops = std::move(ops);
  return summary;
}

}  // namespace trainscope::analysis
