// Repeat mining remembered by its input: a step's mining is a function of
// its collapsed token stream and their weights alone, and training repeats
// the same kernels step after step and rank after rank (the x28 trace's 140
// mined steps are one stream; a 64-rank synth job's 192 are one), so a
// stream mined once need not be mined again. Shared by the threads of a job.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "analysis/motifs/motif_mining.h"

namespace trainscope::analysis {

class MiningMemo {
 public:
  // Up to |max_key_bytes| of remembered streams (tokens and weights) at a
  // time; the cap bounds memory, not time (docs/benchmarks.md, "Repeat
  // mining remembered").
  explicit MiningMemo(size_t max_key_bytes = kDefaultMaxKeyBytes) : max_key_bytes_(max_key_bytes) {}

  // MineRepeats(tokens, weights, options), from memory when the same stream
  // with the same weights and options was remembered. A stream is remembered
  // the second time it is mined: a stream seen once (most steps of a job
  // whose steps differ) costs its hash and nothing held.
  std::vector<RepeatSet> Mine(const std::vector<int32_t>& tokens, std::vector<double> weights,
                              const MiningOptions& options);

  // Minings answered from memory and minings run, so far.
  size_t hits() const;
  size_t runs() const;

  static constexpr size_t kDefaultMaxKeyBytes = size_t{64} << 20;

 private:
  struct Remembered {
    std::vector<int32_t> tokens;
    std::vector<double> weights;
    MiningOptions options;
    std::vector<RepeatSet> repeats;
  };
  struct Slot {
    size_t sightings = 0;
    std::shared_ptr<const Remembered> remembered;  // set the second time
  };

  const size_t max_key_bytes_;
  mutable std::mutex mutex_;
  std::unordered_map<uint64_t, Slot> by_hash_;
  size_t key_bytes_ = 0;
  size_t hits_ = 0;
  size_t runs_ = 0;
};

}  // namespace trainscope::analysis
