#include "analysis/motifs/mining_memo.h"

#include <cstring>
#include <string_view>
#include <utility>

namespace trainscope::analysis {
namespace {

uint64_t HashOf(const std::vector<int32_t>& tokens, const std::vector<double>& weights) {
  const std::string_view token_bytes(reinterpret_cast<const char*>(tokens.data()),
                                     tokens.size() * sizeof(int32_t));
  const std::string_view weight_bytes(reinterpret_cast<const char*>(weights.data()),
                                      weights.size() * sizeof(double));
  const uint64_t a = std::hash<std::string_view>{}(token_bytes);
  const uint64_t b = std::hash<std::string_view>{}(weight_bytes);
  return a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
}

bool SameOptions(const MiningOptions& a, const MiningOptions& b) {
  return a.min_length == b.min_length && a.max_length == b.max_length &&
         a.min_occurrences == b.min_occurrences && a.max_motifs == b.max_motifs;
}

// Weights compared by their bits: a NaN weight is the same as itself.
bool SameWeights(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

}  // namespace

std::vector<RepeatSet> MiningMemo::Mine(const std::vector<int32_t>& tokens,
                                        std::vector<double> weights, const MiningOptions& options) {
  const uint64_t hash = HashOf(tokens, weights);
  std::shared_ptr<const Remembered> remembered;
  size_t sightings = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Slot& slot = by_hash_[hash];
    sightings = ++slot.sightings;
    remembered = slot.remembered;
  }
  // The remembered stream never changes once set: compared outside the lock.
  if (remembered != nullptr && remembered->tokens == tokens &&
      SameWeights(remembered->weights, weights) && SameOptions(remembered->options, options)) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++hits_;
    return remembered->repeats;
  }
  const size_t key_bytes = tokens.size() * sizeof(int32_t) + weights.size() * sizeof(double);
  // The second sighting of a hash not yet remembered keeps its stream (the
  // weights are copied first: MineRepeats turns them into prefix sums).
  std::vector<double> kept_weights;
  const bool keep = sightings >= 2 && remembered == nullptr;
  if (keep) kept_weights = weights;
  std::vector<RepeatSet> repeats = MineRepeats(tokens, std::move(weights), options);
  std::lock_guard<std::mutex> lock(mutex_);
  ++runs_;
  Slot& slot = by_hash_[hash];
  if (keep && slot.remembered == nullptr && key_bytes_ + key_bytes <= max_key_bytes_) {
    key_bytes_ += key_bytes;
    slot.remembered = std::make_shared<const Remembered>(
        Remembered{tokens, std::move(kept_weights), options, repeats});
  }
  return repeats;
}

size_t MiningMemo::hits() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return hits_;
}

size_t MiningMemo::runs() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return runs_;
}

}  // namespace trainscope::analysis
