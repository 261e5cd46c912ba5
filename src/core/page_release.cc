#include "core/page_release.h"

#include <cstdint>

#if __has_include(<sys/mman.h>)
#include <sys/mman.h>
#include <unistd.h>
#define TRAINSCOPE_HAS_MADVISE 1
#else
#define TRAINSCOPE_HAS_MADVISE 0
#endif

namespace trainscope {

void DropPagesWithin(const void* data, size_t bytes) {
#if TRAINSCOPE_HAS_MADVISE
  if (data == nullptr || bytes == 0) return;
  static const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto base = reinterpret_cast<uintptr_t>(data);
  const uintptr_t begin = (base + page - 1) & ~(page - 1);
  const uintptr_t end = (base + bytes) & ~(page - 1);
  if (end <= begin) return;
  // The aligned address is reached from the range's own pointer (no
  // integer-to-pointer cast).
  char* first = const_cast<char*>(static_cast<const char*>(data)) + (begin - base);
  (void)::madvise(first, end - begin, MADV_DONTNEED);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace trainscope
