// ParallelFor: run fn(i) for i in [0, n) on up to |threads| threads.
//
// Work is handed out one index at a time from an atomic counter, so uneven
// ranks (one big, many small) still keep every core busy. fn should not
// throw; if it does (std::bad_alloc from a dependency, say), the exception
// never escapes a worker thread: the first one is caught, the other workers
// stop taking new indexes, and it is rethrown on the calling thread after
// every worker has joined (cli::Run turns it into an error message).
#pragma once

#include <cstddef>
#include <functional>

namespace trainscope {

// Number of worker threads to use by default: the hardware concurrency, at
// least 1. TRAINSCOPE_THREADS in the environment overrides it.
unsigned DefaultThreadCount();

// The most worker threads worth starting: the machine's hardware threads.
// Work here is CPU-bound, so more threads than cores only add stacks and
// context switches (--threads 40000 used to abort on thread creation).
unsigned MaxUsefulThreads();
// |requested| (0 = DefaultThreadCount()) clamped to [1, MaxUsefulThreads()].
unsigned ClampThreads(unsigned requested);
// Each of |items| run side by side gets this many of |threads| for work of
// its own (a big file's parse, a big log's lines), at least 1.
unsigned ThreadsPerItem(unsigned threads, size_t items);

void ParallelFor(size_t n, unsigned threads, const std::function<void(size_t)>& fn);

}  // namespace trainscope
