// The kernel sequence of one compute stream in one step, as tokens.
//
// Motif mining and fingerprint matching work on small integers, not on
// strings: each distinct canonical op type (after the library's
// equivalences, so Muls and Mul are one token) gets a vocabulary id. GPU
// kernels, whose op type is a generic template name, are keyed by their full
// name instead, which still says which functor runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/motifs/fingerprint_library.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

struct KernelSequence {
  int32_t stream = model::kNoStream;
  std::vector<uint32_t> rows;   // DeviceEvents rows, in start order
  std::vector<int32_t> tokens;  // vocabulary id per row
  // Per vocabulary id:
  std::vector<std::string> canonical;  // canonical op type, lower case
  std::vector<std::string> name;       // lower-case kernel name of its first kernel
  std::vector<std::string> display;    // op type as the profile wrote it
  std::vector<uint8_t> keyed_by_name;  // 1: a GPU kernel whose op type was derived from its name
};

// Compute kernels of |step| (kNoStep: all) grouped by stream, each stream's
// kernels in start order. Streams with fewer than |min_kernels| are left out.
std::vector<KernelSequence> BuildKernelSequences(const model::RankProfile& profile, int32_t step,
                                                 const FingerprintLibrary& library,
                                                 size_t min_kernels = 8);

}  // namespace trainscope::analysis
