#include "analysis/motifs/gain_model.h"

#include <algorithm>

namespace trainscope::analysis {

int64_t LaunchOverheadNs(const model::DeviceEvents& table,
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
  return shortest[shortest.size() / 2];
}

InstanceCost EstimateInstance(const model::DeviceEvents& table, const KernelSequence& sequence,
                              const FingerprintInstance& instance, const Fingerprint& fingerprint,
                              int64_t launch_overhead_ns) {
  InstanceCost cost;
  const uint32_t first = sequence.rows[instance.begin];
  int64_t end_ns = table.end_ns(first);
  for (int32_t p = instance.begin; p < instance.end; ++p) {
    const uint32_t row = sequence.rows[p];
    end_ns = std::max(end_ns, table.end_ns(row));
    const int64_t ns = table.duration_ns[row];
    if (std::find(instance.kept.begin(), instance.kept.end(), p) != instance.kept.end()) {
      cost.kept_ns += ns;
      continue;
    }
    cost.kernel_ns += ns;
    cost.longest_ns = std::max(cost.longest_ns, ns);
  }
  cost.span_ns = end_ns - table.start_ns[first];
  // Kept ops (ANY members) run either way; a fused chain adds one pass.
  cost.fused_ns = cost.kept_ns + launch_overhead_ns +
                  (fingerprint.action == FingerprintAction::kFuse ? cost.longest_ns : 0);
  cost.saving_ns = std::max<int64_t>(0, cost.span_ns - cost.fused_ns);
  return cost;
}

}  // namespace trainscope::analysis
