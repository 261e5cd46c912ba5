// A small, fully specified PRNG for the generator.
//
// std::*_distribution output differs between standard libraries, so every
// draw here is our own arithmetic on raw 64-bit words: the same seed gives
// the same bytes everywhere.
#pragma once

#include <cstdint>

namespace trainscope::synth {

// xoshiro256** seeded through SplitMix64 (the authors' recommended seeding).
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    uint64_t x = seed;
    for (uint64_t& word : state_) word = SplitMix(x);
  }

  // Two streams that must not correlate (e.g. per rank) mix a salt in.
  Rng(uint64_t seed, uint64_t salt)
      : Rng(seed ^ (salt * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL)) {}

  uint64_t Next() {
    const uint64_t result = Rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = Rotl(state_[3], 45);
    return result;
  }

  // Uniform in [0, 1) with 53 random bits.
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  double Uniform(double lo, double hi) { return lo + (hi - lo) * Uniform(); }
  // Uniform integer in [0, n); the tiny modulo bias is irrelevant here.
  uint64_t Below(uint64_t n) { return n == 0 ? 0 : Next() % n; }
  bool Chance(double p) { return Uniform() < p; }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t SplitMix(uint64_t& x) {
    uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  uint64_t state_[4];
};

}  // namespace trainscope::synth
