// The executable's malloc settings (src/cli/malloc_tuning.cc): after them, a
// large block is mapped on its own even after a larger one was freed, where
// glibc's default would have raised its threshold and served it from the
// heap, and a freed block at the heap's top stays there. In the allocation
// tests' own binary, as the settings are process-wide.
#include "cli/malloc_tuning.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdlib>

#include "allocation/sanitizer_allocator.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

// As in the executable, before anything else allocates (the setting governs
// where blocks come from, not freed heap space that is already there).
const bool kTuned = trainscope::cli::ReturnLargeBlocksToTheSystem();

#if defined(__GLIBC__)
constexpr size_t kMiB = size_t{1} << 20;

// Whether a block of |bytes| is mapped on its own (counted in mallinfo2's
// bytes of mapped blocks) rather than carved from the heap.
bool MappedOnItsOwn(size_t bytes) {
  const size_t before = mallinfo2().hblkhd;
  void* block = std::malloc(bytes);  // NOLINT(cppcoreguidelines-no-malloc): malloc is the subject
  // Written through a volatile pointer: a malloc/free pair whose block is
  // never used may be removed by the compiler.
  static_cast<volatile char*>(block)[bytes - 1] = 1;
  const size_t after = mallinfo2().hblkhd;
  std::free(block);  // NOLINT(cppcoreguidelines-no-malloc)
  return after >= before + bytes;
}

class MallocTuning : public ::testing::Test {
 protected:
  void SetUp() override {
    if (trainscope::testing::SanitizerAllocator())
      GTEST_SKIP() << "sanitizer build: the sanitizer's malloc is used";
    ASSERT_TRUE(kTuned);
  }
};

TEST_F(MallocTuning, LargeBlocksStayMappedAfterALargerOneIsFreed) {
  // With glibc's default, freeing the mapped 12 MiB block raises the
  // threshold to 12 MiB and the 8 MiB and 4 MiB blocks come from the heap
  // (checked when this test was written: the first EXPECT then fails).
  MappedOnItsOwn(12 * kMiB);
  EXPECT_TRUE(MappedOnItsOwn(8 * kMiB));
  EXPECT_TRUE(MappedOnItsOwn(4 * kMiB));
  EXPECT_FALSE(MappedOnItsOwn(1 * kMiB)) << "below the threshold a block comes from the heap";
}

// Fixing the mmap threshold fixes the trim threshold too, at 128 KiB, and
// the heap's top would be given back after nearly every free (a 64-rank job
// faulted 5x as many pages): the setting keeps up to 4 MiB there.
TEST_F(MallocTuning, TheHeapKeepsAFreedBlockAtItsTop) {
  void* low = std::malloc(kMiB);   // NOLINT(cppcoreguidelines-no-malloc): malloc is the subject
  void* high = std::malloc(kMiB);  // NOLINT(cppcoreguidelines-no-malloc)
  static_cast<volatile char*>(low)[kMiB - 1] = 1;
  static_cast<volatile char*>(high)[kMiB - 1] = 1;
  std::free(high);  // NOLINT(cppcoreguidelines-no-malloc)
  const size_t kept_at_top = mallinfo2().keepcost;
  std::free(low);  // NOLINT(cppcoreguidelines-no-malloc)
  EXPECT_GE(kept_at_top, kMiB);
}
#else
TEST(MallocTuning, NeedsGlibc) { GTEST_SKIP() << "not glibc: the settings are glibc's"; }
#endif

}  // namespace
