#include "core/parallel.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace trainscope {

unsigned MaxUsefulThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

unsigned ClampThreads(unsigned requested) {
  if (requested == 0) return DefaultThreadCount();
  return std::min(requested, MaxUsefulThreads());
}

unsigned DefaultThreadCount() {
  if (const char* env = std::getenv("TRAINSCOPE_THREADS")) {
    int value = std::atoi(env);
    if (value > 0) return std::min(static_cast<unsigned>(value), MaxUsefulThreads());
  }
  return MaxUsefulThreads();
}

unsigned ThreadsPerItem(unsigned threads, size_t items) {
  return std::max(1u, threads / static_cast<unsigned>(std::max<size_t>(1, items)));
}

void ParallelFor(size_t n, unsigned threads, const std::function<void(size_t)>& fn) {
  if (n == 0) return;
  size_t workers = std::min<size_t>(std::max(1u, threads), n);
  if (workers == 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::mutex error_mutex;
  std::exception_ptr first_error;
  auto work = [&] {
    try {
      for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) fn(i);
    } catch (...) {
      next.store(n);  // the others finish their current index and stop
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!first_error) first_error = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (size_t t = 1; t < workers; ++t) {
    try {
      pool.emplace_back(work);
    } catch (...) {
      // The OS gave no more threads (std::system_error), or no memory for
      // one (std::bad_alloc): the ones we have do the work.
      break;
    }
  }
  work();
  for (auto& thread : pool) thread.join();
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace trainscope
