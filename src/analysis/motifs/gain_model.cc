#include "analysis/motifs/gain_model.h"

#include <algorithm>
#include <cmath>

#include "analysis/common/tensor_shapes.h"

namespace trainscope::analysis {
namespace {

// Per-member traffic of an instance; all-or-nothing, so the shape model is
// used only where every member is sized.
struct Traffic {
  bool known = true;
  double member_bytes = 0;
  double first_inputs = 0;
  double last_outputs = 0;
  double widest_inputs = 0;
};

void AddMember(const model::DeviceEvents& table, uint32_t row, bool first, bool last,
               TensorBytesCache* cache, Traffic* t) {
  if (!t->known) return;
  const std::optional<double> in = cache->Of(table.input_shapes[row], table.input_dtypes[row]);
  const std::optional<double> out = cache->Of(table.output_shapes[row], table.output_dtypes[row]);
  if (!in || !out) {
    t->known = false;
    return;
  }
  t->member_bytes += *in + *out;
  t->widest_inputs = std::max(t->widest_inputs, *in);
  if (first) t->first_inputs = *in;
  if (last) t->last_outputs = *out;
}

}  // namespace

std::optional<double> TensorBytesCache::Of(StringId shapes, StringId dtypes) {
  if (shapes == StringPool::kEmpty) return std::nullopt;
  const uint64_t key = (static_cast<uint64_t>(shapes) << 32) | dtypes;
  const auto found = bytes_.find(key);
  if (found != bytes_.end()) return found->second;
  std::optional<double> bytes = TensorListBytes(strings_.Get(shapes), strings_.Get(dtypes));
  bytes_.emplace(key, bytes);
  return bytes;
}

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
                              int64_t launch_overhead_ns, TensorBytesCache* bytes) {
  InstanceCost cost;
  const uint32_t first = sequence.rows[instance.begin];
  int64_t end_ns = table.end_ns(first);
  auto kept = [&](int32_t p) {
    return std::find(instance.kept.begin(), instance.kept.end(), p) != instance.kept.end();
  };
  int32_t first_member = -1;
  int32_t last_member = -1;
  for (int32_t p = instance.begin; p < instance.end; ++p) {
    if (kept(p)) continue;
    if (first_member < 0) first_member = p;
    last_member = p;
  }
  Traffic traffic;
  for (int32_t p = instance.begin; p < instance.end; ++p) {
    const uint32_t row = sequence.rows[p];
    end_ns = std::max(end_ns, table.end_ns(row));
    const int64_t ns = table.duration_ns[row];
    if (kept(p)) {
      cost.kept_ns += ns;
      continue;
    }
    cost.kernel_ns += ns;
    cost.longest_ns = std::max(cost.longest_ns, ns);
    AddMember(table, row, p == first_member, p == last_member, bytes, &traffic);
  }
  cost.span_ns = end_ns - table.start_ns[first];
  int64_t one_pass_ns = cost.longest_ns;
  if (traffic.known && first_member >= 0 && traffic.member_bytes > 0 && cost.kernel_ns > 0) {
    cost.member_bytes = traffic.member_bytes;
    cost.fused_bytes = std::max(traffic.first_inputs + traffic.last_outputs, traffic.widest_inputs);
    // The members' own rate, bytes per ns: the fused kernel runs at it.
    const double rate = traffic.member_bytes / static_cast<double>(cost.kernel_ns);
    one_pass_ns = static_cast<int64_t>(std::llround(*cost.fused_bytes / rate));
  }
  // Kept ops (ANY members) run either way; a fused chain adds one pass.
  cost.fused_ns = cost.kept_ns + launch_overhead_ns +
                  (fingerprint.action == FingerprintAction::kFuse ? one_pass_ns : 0);
  cost.saving_ns = std::max<int64_t>(0, cost.span_ns - cost.fused_ns);
  return cost;
}

}  // namespace trainscope::analysis
