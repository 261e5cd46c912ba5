// Expected gain of removing a fingerprint (what-if), methodology §2 step 5.
//
// The fused kernel's time is estimated as one pass over the data the chain
// exchanges with the rest of the model, plus one launch overhead (the
// median of the step's shortest kernels). Where the members carry their
// input and output shapes (kernel_details.csv / the .db export), "one pass"
// is measured in bytes: the members' traffic (every input read and output
// written, each kernel a round trip through device memory) divided by their
// summed time is the rate these kernels reach on this device, and the fused
// kernel moves only the chain's boundary tensors at that rate. Without
// shapes the fused kernel takes the longest member's time (the member that
// already streams the whole tensor once). The saving of an instance is its
// wall span (members and the dispatch gaps between them) minus the fused
// time; for a "remove" remedy (glue around a custom op) only the kept op and
// one launch remain. A matmul member (the vocabulary projection inside the
// cross-entropy chain) is compute, not traffic: fusing moves its epilogue,
// not its FLOPs, so its time stays in the fused kernel and the pass is
// sized over the other members.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/motifs/fingerprint_library.h"
#include "analysis/motifs/fingerprint_match.h"
#include "analysis/motifs/motif_sequence.h"
#include "core/string_pool.h"
#include "model/device_events.h"

namespace trainscope::analysis {

// The assumptions, in words, are the gain row of the "fingerprint" entry of
// data/findings.tsv.

// Median duration of the shortest decile of compute kernels in |sequences|
// (one of them, not an interpolation): a kernel that does almost nothing
// costs about one launch.
int64_t LaunchOverheadNs(const model::DeviceEvents& table,
                         const std::vector<KernelSequence>& sequences);

// What the model asks of a member, memoised: a step repeats a few hundred
// distinct tensor sets and op types thousands of times. Flat tables indexed
// by the table's tensor set id and the op type's string id, not hash maps:
// the estimate asks for every member of every instance (on a step of a
// million kernels, two hash lookups a member were a tenth of the motifs'
// time).
class MemberFacts {
 public:
  MemberFacts(const model::DeviceEvents& table, const StringPool& strings)
      : table_(table), strings_(strings) {}
  // The bytes a row's kernel reads (its input tensors) and writes (its
  // outputs); nullopt where the shapes are absent or unreadable.
  struct Traffic {
    std::optional<double> in;
    std::optional<double> out;
  };
  const Traffic& TrafficOf(uint32_t row);
  // A matrix multiplication (common/tensor_shapes IsMatmulOp, or a GPU
  // kernel type naming a gemm): its FLOPs stay in the fused kernel.
  bool IsMatmul(StringId op_type);

 private:
  enum class Known : uint8_t { kNotYet, kNo, kYes };
  const model::DeviceEvents& table_;
  const StringPool& strings_;
  std::vector<std::optional<Traffic>> traffic_;  // by tensor set id, once asked
  std::vector<Known> matmul_;                    // by op type id
};

struct InstanceCost {
  int64_t span_ns = 0;     // first member start to last member end
  int64_t kernel_ns = 0;   // summed member durations (kept op excluded)
  int64_t longest_ns = 0;  // longest member (kept op and matmuls excluded)
  int64_t kept_ns = 0;     // ANY members' durations
  int64_t matmul_ns = 0;   // matmul members' durations (their FLOPs stay)
  int64_t fused_ns = 0;    // what replaces the chain
  int64_t saving_ns = 0;   // span - fused, at least 0
  // Shape-based traffic (kept op and matmuls excluded); nullopt where a
  // member lacks readable input or output shapes.
  std::optional<double> member_bytes;  // every member's inputs + outputs
  std::optional<double> fused_bytes;   // the boundary (see EstimateInstance)
};

// The fused traffic is the chain's boundary: what its first member reads
// plus what its last member writes, and at least what its widest member
// reads (an input that enters mid-chain, SwiGLU's up projection, is still
// read once).
InstanceCost EstimateInstance(const model::DeviceEvents& table, const KernelSequence& sequence,
                              const FingerprintInstance& instance, const Fingerprint& fingerprint,
                              int64_t launch_overhead_ns, MemberFacts* facts);

}  // namespace trainscope::analysis
