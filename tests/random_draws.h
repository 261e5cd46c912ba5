// Deterministic draws for the randomised tests: a 64-bit linear
// congruential generator (Knuth's MMIX constants), so a failing trial is the
// same trial on every machine and standard library, which a
// std::uniform_int_distribution does not promise.
#pragma once

#include <cstdint>

namespace trainscope::testing {

class RandomDraws {
 public:
  explicit RandomDraws(uint64_t seed) : state_(seed) {}

  // A draw in [0, bound).
  int32_t operator()(uint32_t bound) {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int32_t>((state_ >> 33) % bound);
  }

 private:
  uint64_t state_;
};

}  // namespace trainscope::testing
