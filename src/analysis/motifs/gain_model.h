// Expected gain of removing a fingerprint (what-if), methodology §2 step 5.
//
// The model uses kernel durations only (input shapes are on DeviceEvents for
// the per-operator efficiency, but not used here yet), so the fused kernel's time is
// estimated as one pass over the data: the longest member kernel (the one
// that already streams the whole tensor once), plus one launch overhead,
// measured as the median of the shortest kernels of the step. The saving of
// an instance is its wall span (members and the dispatch gaps between them)
// minus that fused time; for a "remove" remedy (glue around a custom op) the
// kept op's time replaces the fused kernel's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/motifs/fingerprint_library.h"
#include "analysis/motifs/fingerprint_match.h"
#include "analysis/motifs/motif_sequence.h"
#include "model/device_events.h"

namespace trainscope::analysis {

// The assumptions, in words, are the gain row of the "fingerprint" entry of
// data/findings.tsv.

// Median duration of the shortest decile of compute kernels in |sequences|
// (one of them, not an interpolation): a kernel that does almost nothing
// costs about one launch.
int64_t LaunchOverheadNs(const model::DeviceEvents& table,
                         const std::vector<KernelSequence>& sequences);

struct InstanceCost {
  int64_t span_ns = 0;     // first member start to last member end
  int64_t kernel_ns = 0;   // summed member durations (kept op excluded)
  int64_t longest_ns = 0;  // longest member (kept op excluded)
  int64_t kept_ns = 0;     // ANY members' durations
  int64_t fused_ns = 0;    // what replaces the chain
  int64_t saving_ns = 0;   // span - fused, at least 0
};

InstanceCost EstimateInstance(const model::DeviceEvents& table, const KernelSequence& sequence,
                              const FingerprintInstance& instance, const Fingerprint& fingerprint,
                              int64_t launch_overhead_ns);

}  // namespace trainscope::analysis
