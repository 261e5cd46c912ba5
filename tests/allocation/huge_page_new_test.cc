// The executable's operator new (src/cli/huge_page_new.cc) advises large
// blocks for transparent huge pages and leaves small ones alone. Linked into
// its own binary, as into the trainscope executable, so the library's tests
// keep the toolchain's allocator. The kernel reports the advice per mapping
// in /proc/self/smaps ("VmFlags: ... hg"), whether or not it could give huge
// pages at that moment, so the check does not depend on free memory.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "allocation/sanitizer_allocator.h"

namespace {

// The VmFlags of the mapping that holds |address|, or "" when not found.
std::string VmFlagsOf(const void* address) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t begin = 0;
    std::uintptr_t end = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> begin >> dash >> end && dash == '-' &&
        line.find(':') > line.find(' ')) {
      inside = begin <= at && at < end;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

bool Advised(const void* address) { return VmFlagsOf(address).find(" hg") != std::string::npos; }

TEST(HugePageNew, AdvisesTheInteriorOfLargeBlocks) {
  if (trainscope::testing::SanitizerAllocator())
    GTEST_SKIP() << "sanitizer build: the sanitizer's operator new is used";
  std::ifstream probe("/proc/self/smaps");
  if (!probe) GTEST_SKIP() << "no /proc/self/smaps";
  std::vector<int64_t> column(size_t{16} << 20 >> 3);  // 16 MiB
  // The middle of the block lies in its 2 MiB-aligned interior.
  const void* middle = column.data() + column.size() / 2;
  const std::string flags = VmFlagsOf(middle);
  ASSERT_FALSE(flags.empty()) << "mapping of the block not found in /proc/self/smaps";
  EXPECT_TRUE(Advised(middle)) << flags;
}

TEST(HugePageNew, LargeBlocksStartOnAHugePageBoundary) {
  if (trainscope::testing::SanitizerAllocator())
    GTEST_SKIP() << "sanitizer build: the sanitizer's operator new is used";
  // The advised range then begins at the block's first byte: only the last
  // partial huge page is left to small pages. Several sizes, none a multiple
  // of 2 MiB, and blocks alive together (each its own mapping).
  constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
  std::vector<std::vector<char>> blocks;
  for (size_t mib : {4, 5, 9, 33}) {
    blocks.emplace_back((size_t{mib} << 20) + 12345);
    const auto address = reinterpret_cast<std::uintptr_t>(blocks.back().data());
    EXPECT_EQ(address % kHugePage, 0u) << mib << " MiB block at " << std::hex << address;
    EXPECT_TRUE(Advised(blocks.back().data())) << VmFlagsOf(blocks.back().data());
  }
}

TEST(HugePageNew, LeavesSmallBlocksAlone) {
  if (trainscope::testing::SanitizerAllocator())
    GTEST_SKIP() << "sanitizer build: the sanitizer's operator new is used";
  // Below glibc's initial mmap threshold (128 KiB) a block comes from the
  // heap, which nothing advised.
  auto small = std::make_unique<char[]>(4096);
  const std::string flags = VmFlagsOf(small.get());
  ASSERT_FALSE(flags.empty()) << "mapping of the block not found in /proc/self/smaps";
  EXPECT_FALSE(Advised(small.get())) << flags;
}

}  // namespace
