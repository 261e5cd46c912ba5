// Fingerprint matching: where the library's chains occur in a kernel
// sequence. Independent of motif mining, so that a chain is counted exactly
// even where it sits inside a longer periodic motif (one layer).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/motifs/fingerprint_library.h"
#include "analysis/motifs/motif_sequence.h"

namespace trainscope::analysis {

struct FingerprintInstance {
  int32_t fingerprint = -1;  // index into library.fingerprints()
  int32_t begin = 0;         // positions in the sequence, [begin, end)
  int32_t end = 0;
  std::vector<int32_t> kept;  // positions matched by ANY (the op the chain surrounds)
};

// Scans left to right; at each position the longest match over all
// fingerprints wins (ties: library order), and scanning resumes after it,
// so instances never overlap and a gated RMSNorm is not also counted as an
// RMSNorm. Linear in kernels x fingerprints.
std::vector<FingerprintInstance> MatchFingerprints(const KernelSequence& sequence,
                                                   const FingerprintLibrary& library);

}  // namespace trainscope::analysis
