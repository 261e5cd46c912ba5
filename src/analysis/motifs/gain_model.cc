#include "analysis/motifs/gain_model.h"

#include <algorithm>
#include <cmath>

#include "analysis/common/tensor_shapes.h"
#include "analysis/common/visited_quantiles.h"
#include "core/rule_file.h"

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

void AddMember(uint32_t row, bool first, bool last, MemberFacts* facts, Traffic* t) {
  if (!t->known) return;
  const MemberFacts::Traffic& member = facts->TrafficOf(row);
  if (!member.in || !member.out) {
    t->known = false;
    return;
  }
  t->member_bytes += *member.in + *member.out;
  t->widest_inputs = std::max(t->widest_inputs, *member.in);
  if (first) t->first_inputs = *member.in;
  if (last) t->last_outputs = *member.out;
}

// Bytes of a spelt tensor list (shapes, types); nullopt when the shapes
// are absent or unreadable.
std::optional<double> ListBytes(const StringPool& strings, StringId shapes, StringId dtypes) {
  if (shapes == StringPool::kEmpty) return std::nullopt;
  return TensorListBytes(strings.Get(shapes), strings.Get(dtypes));
}

}  // namespace

bool MemberFacts::IsMatmul(StringId op_type) {
  if (op_type >= matmul_.size()) matmul_.resize(static_cast<size_t>(op_type) + 1, Known::kNotYet);
  Known& known = matmul_[op_type];
  if (known == Known::kNotYet) {
    const std::string_view type = strings_.Get(op_type);
    const bool matmul = IsMatmulOp(type) || AsciiLower(type).find("gemm") != std::string::npos;
    known = matmul ? Known::kYes : Known::kNo;
  }
  return known == Known::kYes;
}

const MemberFacts::Traffic& MemberFacts::TrafficOf(uint32_t row) {
  const model::TensorDescriptionId id = table_.tensors[row];
  if (id >= traffic_.size()) traffic_.resize(static_cast<size_t>(id) + 1);
  std::optional<Traffic>& traffic = traffic_[id];
  if (!traffic) {
    const model::TensorDescription& tensors = table_.tensors_of(row);
    traffic = Traffic{ListBytes(strings_, tensors.input_shapes, tensors.input_dtypes),
                      ListBytes(strings_, tensors.output_shapes, tensors.output_dtypes)};
  }
  return *traffic;
}

int64_t LaunchOverheadNs(const model::DeviceEvents& table,
                         const std::vector<KernelSequence>& sequences) {
  size_t kernels = 0;
  for (const auto& seq : sequences) kernels += seq.rows.size();
  if (kernels == 0) return 0;
  // The median of the shortest decile is one order statistic of them all:
  // the shortest |decile| sorted are the first |decile| of the whole order.
  // Past kCopyUpTo kernels it is selected by reading the durations a few
  // times, not in a copy of them (8 bytes a kernel held beside the step's
  // other analyses).
  const size_t decile = std::max<size_t>(1, kernels / 10);
  return OrderStatisticOfVisited(
      [&](auto&& visit) {
        for (const auto& seq : sequences) {
          for (uint32_t row : seq.rows) visit(table.duration_ns[row]);
        }
      },
      kernels, decile / 2);
}

InstanceCost EstimateInstance(const model::DeviceEvents& table, const KernelSequence& sequence,
                              const FingerprintInstance& instance, const Fingerprint& fingerprint,
                              int64_t launch_overhead_ns, MemberFacts* facts) {
  InstanceCost cost;
  const uint32_t first = sequence.rows[instance.begin];
  int64_t end_ns = table.end_ns(first);
  auto kept = [&](int32_t p) {
    return std::find(instance.kept.begin(), instance.kept.end(), p) != instance.kept.end();
  };
  // The members one pass replaces: neither kept nor a matmul.
  auto passed = [&](int32_t p) {
    return !kept(p) && !facts->IsMatmul(table.op_type[sequence.rows[p]]);
  };
  int32_t first_member = -1;
  int32_t last_member = -1;
  for (int32_t p = instance.begin; p < instance.end; ++p) {
    if (!passed(p)) continue;
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
    if (!passed(p)) {
      cost.matmul_ns += ns;
      continue;
    }
    cost.longest_ns = std::max(cost.longest_ns, ns);
    AddMember(row, p == first_member, p == last_member, facts, &traffic);
  }
  cost.span_ns = end_ns - table.start_ns[first];
  int64_t one_pass_ns = cost.longest_ns;
  const int64_t passed_ns = cost.kernel_ns - cost.matmul_ns;
  if (traffic.known && first_member >= 0 && traffic.member_bytes > 0 && passed_ns > 0) {
    cost.member_bytes = traffic.member_bytes;
    cost.fused_bytes = std::max(traffic.first_inputs + traffic.last_outputs, traffic.widest_inputs);
    // At the members' own rate (their traffic over their time).
    one_pass_ns = static_cast<int64_t>(
        std::llround(static_cast<double>(passed_ns) * *cost.fused_bytes / traffic.member_bytes));
  }
  // Kept ops (ANY members) and matmuls run either way; a fused chain adds
  // one pass.
  cost.fused_ns = cost.kept_ns + cost.matmul_ns + launch_overhead_ns +
                  (fingerprint.action == FingerprintAction::kFuse ? one_pass_ns : 0);
  cost.saving_ns = std::max<int64_t>(0, cost.span_ns - cost.fused_ns);
  return cost;
}

}  // namespace trainscope::analysis
