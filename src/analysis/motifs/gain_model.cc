#include "analysis/motifs/gain_model.h"

#include <algorithm>

namespace trainscope::analysis {

double LaunchOverheadUs(const model::DeviceEvents& table,
                        const std::vector<KernelSequence>& sequences) {
  std::vector<int64_t> durations;
  for (const auto& seq : sequences) {
    for (uint32_t row : seq.rows) durations.push_back(table.duration_ns[row]);
  }
  if (durations.empty()) return 0;
  const size_t decile = std::max<size_t>(1, durations.size() / 10);
  std::nth_element(durations.begin(), durations.begin() + static_cast<std::ptrdiff_t>(decile - 1),
                   durations.end());
  std::vector<int64_t> shortest(durations.begin(),
                                durations.begin() + static_cast<std::ptrdiff_t>(decile));
  std::nth_element(shortest.begin(),
                   shortest.begin() + static_cast<std::ptrdiff_t>(shortest.size() / 2),
                   shortest.end());
  return static_cast<double>(shortest[shortest.size() / 2]) / 1000.0;
}

InstanceCost EstimateInstance(const model::DeviceEvents& table, const KernelSequence& sequence,
                              const FingerprintInstance& instance, const Fingerprint& fingerprint,
                              double launch_overhead_us) {
  InstanceCost cost;
  const uint32_t first = sequence.rows[instance.begin];
  int64_t end_ns = table.end_ns(first);
  for (int32_t p = instance.begin; p < instance.end; ++p) {
    const uint32_t row = sequence.rows[p];
    end_ns = std::max(end_ns, table.end_ns(row));
    const double us = static_cast<double>(table.duration_ns[row]) / 1000.0;
    if (std::find(instance.kept.begin(), instance.kept.end(), p) != instance.kept.end()) {
      cost.kept_us += us;
      continue;
    }
    cost.kernel_us += us;
    cost.longest_us = std::max(cost.longest_us, us);
  }
  cost.span_us = static_cast<double>(end_ns - table.start_ns[first]) / 1000.0;
  // Kept ops (ANY members) run either way; a fused chain adds one pass.
  cost.fused_us = cost.kept_us + launch_overhead_us +
                  (fingerprint.action == FingerprintAction::kFuse ? cost.longest_us : 0.0);
  cost.saving_us = std::max(0.0, cost.span_us - cost.fused_us);
  return cost;
}

}  // namespace trainscope::analysis
