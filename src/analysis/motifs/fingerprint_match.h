// Fingerprint matching: where the library's chains occur in a kernel
// sequence. Independent of motif mining, so that a chain is counted exactly
// even where it sits inside a longer periodic motif (one layer).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
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

// Which members of a library's fingerprints accept a vocabulary entry (its
// canonical op type and kernel name; a member's globs are tried on them):
// the same answer at every step of a rank, so worked out once per distinct
// entry and shared by the steps, which run on several threads. A trace of
// ~40 steps asked the same globs ~3 M times (2 % of its analysis).
class FingerprintAcceptMemo {
 public:
  explicit FingerprintAcceptMemo(const FingerprintLibrary& library) : library_(library) {}

  const FingerprintLibrary& library() const { return library_; }

  // One byte per member of every fingerprint, in library order (the
  // fingerprints' members one after the other): 1 where it accepts.
  const std::vector<uint8_t>& Accepts(std::string_view canonical, std::string_view name);

  // Distinct entries answered so far.
  size_t entries();

 private:
  const FingerprintLibrary& library_;
  std::mutex mutex_;
  // Keyed by canonical + '\0' + name; a node map, so the vectors handed
  // out stay where they are while others are added.
  std::unordered_map<std::string, std::vector<uint8_t>> by_entry_;
};

// The longest match of |members| at tokens[pos...], where accepts[m][t] says
// whether member m takes token t: the farthest end over every way to take
// or skip (optional members) the members, or -1 when none completes; on a
// tie the path that takes a member rather than skip it. |any_positions|
// gets the positions its ANY members took. MatchFingerprints' step at each
// position, exposed for the tests.
int32_t LongestMemberMatch(const std::vector<PatternMember>& members,
                           const std::vector<std::vector<uint8_t>>& accepts,
                           const std::vector<int32_t>& tokens, int32_t pos,
                           std::vector<int32_t>* any_positions);

// Scans left to right; at each position the longest match over all
// fingerprints wins (ties: library order), and scanning resumes after it,
// so instances never overlap and a gated RMSNorm is not also counted as an
// RMSNorm. Linear in kernels x fingerprints.
// With |memo| (for |library|), the members' answers come from it.
std::vector<FingerprintInstance> MatchFingerprints(const KernelSequence& sequence,
                                                   const FingerprintLibrary& library,
                                                   FingerprintAcceptMemo* memo = nullptr);

}  // namespace trainscope::analysis
