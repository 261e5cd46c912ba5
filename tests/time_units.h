// Durations in the model's unit (int64 ns), for tests that build timelines.
#pragma once

#include <cstdint>

namespace trainscope::testing {

inline constexpr int64_t kMs = 1'000'000;

}  // namespace trainscope::testing
