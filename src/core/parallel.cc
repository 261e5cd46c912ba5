#include "core/parallel.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

namespace trainscope {

unsigned DefaultThreadCount() {
  if (const char* env = std::getenv("TRAINSCOPE_THREADS")) {
    int value = std::atoi(env);
    if (value > 0) return static_cast<unsigned>(value);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

void ParallelFor(size_t n, unsigned threads, const std::function<void(size_t)>& fn) {
  if (n == 0) return;
  size_t workers = std::min<size_t>(std::max(1u, threads), n);
  if (workers == 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) fn(i);
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (size_t t = 1; t < workers; ++t) pool.emplace_back(work);
  work();
  for (auto& thread : pool) thread.join();
}

}  // namespace trainscope
