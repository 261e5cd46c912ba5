// ParallelFor: run fn(i) for i in [0, n) on up to |threads| threads.
//
// Work is handed out one index at a time from an atomic counter, so uneven
// ranks (one big, many small) still keep every core busy. fn must not throw.
#pragma once

#include <cstddef>
#include <functional>

namespace trainscope {

// Number of worker threads to use by default: the hardware concurrency, at
// least 1. TRAINSCOPE_THREADS in the environment overrides it.
unsigned DefaultThreadCount();

void ParallelFor(size_t n, unsigned threads, const std::function<void(size_t)>& fn);

}  // namespace trainscope
