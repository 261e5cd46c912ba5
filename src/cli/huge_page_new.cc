// Large allocations of the trainscope executable backed by transparent huge
// pages.
//
// Why: the big buffers of an analysis (the event table's columns, a CSV
// chunk's rows, a trace chunk's copy, the interval lists of the unions) are
// written once from front to back. With 4 KiB pages every page of them is one
// page fault and one TLB entry; on a 1 GB kernel_details.csv that is ~350 k
// faults and a third of the run in the kernel (docs/benchmarks.md, "Huge
// pages for large allocations"). Debian's kernels leave THP to `madvise`, and
// glibc only asks for it under the `glibc.malloc.hugetlb=1` tunable, which
// can be set only in the environment before the process starts. So the
// executable replaces the one replaceable allocation function every
// std::allocator uses, allocates with malloc as before (so the default
// operator delete, which calls free, stays right) and advises the 2 MiB-
// aligned interior of allocations of 4 MiB or more, which it places on a
// 2 MiB boundary (posix_memalign) so that the interior starts at the block.
// Databases that read columns do the same through their allocator (DuckDB
// and ClickHouse link jemalloc with THP); jemalloc itself was measured here
// and held 1.5x the memory at the peak.
//
// Only in the executable: the library and its tests keep the toolchain's
// allocator, and sanitizer builds keep theirs (they replace operator new).
#include <stdlib.h>  // posix_memalign
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <new>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TRAINSCOPE_HUGE_PAGE_NEW 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define TRAINSCOPE_HUGE_PAGE_NEW 0
#endif
#endif
#ifndef TRAINSCOPE_HUGE_PAGE_NEW
#if defined(__linux__) && defined(MADV_HUGEPAGE)
#define TRAINSCOPE_HUGE_PAGE_NEW 1
#else
#define TRAINSCOPE_HUGE_PAGE_NEW 0
#endif
#endif

#if TRAINSCOPE_HUGE_PAGE_NEW

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
// Two huge pages: the advised interior is then at least one whole page.
constexpr std::size_t kAdviseFrom = std::size_t{4} << 20;

void AdviseHugePages(void* block, std::size_t size) {
  // Offsets, not integers cast back to pointers: the interior is found by
  // how far the block's ends are from the next huge-page boundaries.
  const auto address = reinterpret_cast<std::uintptr_t>(block);
  const std::size_t head = (kHugePage - address % kHugePage) % kHugePage;
  if (head >= size) return;
  const std::size_t interior = (size - head) / kHugePage * kHugePage;
  if (interior == 0) return;
  // Advice only: where the kernel refuses (THP off, an old kernel) the pages
  // stay small, as without it.
  (void)madvise(static_cast<char*>(block) + head, interior, MADV_HUGEPAGE);
}

}  // namespace

// The replaceable global allocation function ([new.delete.single]); the
// array and nothrow forms of libstdc++ call it. As the standard's: on
// failure the new-handler runs and the allocation is tried again, until
// there is none (then std::bad_alloc).
void* operator new(std::size_t size) {
  const std::size_t bytes = size == 0 ? 1 : size;
  const bool large = size >= kAdviseFrom;
  auto allocate = [bytes, large] {
    // A large block starts on a huge-page boundary, so only its tail (the
    // last partial huge page) is left to small pages, not its head too: a
    // block mapped where malloc put it lost up to 2 MiB at each end, each
    // 4 KiB of it a page fault (~14 k faults on the 1 GB CSV's columns).
    // The bytes skipped to align it are address space, never touched. free
    // releases it as any malloc'd block.
    if (!large) return std::malloc(bytes);
    void* aligned = nullptr;
    return posix_memalign(&aligned, kHugePage, bytes) == 0 ? aligned : nullptr;
  };
  void* block = allocate();
  while (block == nullptr) {
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
    block = allocate();
  }
  if (large) AdviseHugePages(block, size);
  return block;
}

#endif  // TRAINSCOPE_HUGE_PAGE_NEW
