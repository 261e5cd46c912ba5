// GrowableBytes (core/growable_bytes.h): what was written stays as the array
// grows, past malloc's mmap threshold too (where realloc moves pages), and a
// moved-from array is empty.
#include "core/growable_bytes.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <utility>

namespace trainscope {
namespace {

uint8_t ByteAt(size_t i) { return static_cast<uint8_t>((i * 131) ^ (i >> 9)); }

TEST(GrowableBytes, KeepsEveryByteWrittenAsItGrows) {
  GrowableBytes bytes;
  EXPECT_TRUE(bytes.empty());
  size_t written = 0;
  // Appended in uneven pieces up to 12 MiB (three doublings past 4 MiB).
  for (size_t piece = 1; written < (size_t{12} << 20); piece = piece * 3 + 7) {
    bytes.resize(written + piece);
    for (size_t i = written; i < written + piece; ++i) bytes.data()[i] = ByteAt(i);
    written += piece;
    ASSERT_EQ(bytes.size(), written);
  }
  for (size_t i = 0; i < written; ++i) ASSERT_EQ(bytes.data()[i], ByteAt(i)) << i;
  bytes.resize(10);  // shrinking keeps the first bytes
  EXPECT_EQ(bytes.size(), 10u);
  EXPECT_EQ(bytes.data()[9], ByteAt(9));
}

TEST(GrowableBytes, AMovedArrayLeavesAnEmptyOne) {
  GrowableBytes first;
  first.resize(3);
  first.data()[2] = 42;
  GrowableBytes second(std::move(first));
  EXPECT_EQ(second.size(), 3u);
  EXPECT_EQ(second.data()[2], 42);
  EXPECT_TRUE(first.empty());  // NOLINT(bugprone-use-after-move): the state a move leaves
  EXPECT_EQ(first.data(), nullptr);
  GrowableBytes third;
  third = std::move(second);
  EXPECT_EQ(third.data()[2], 42);
  first.resize(5);  // a moved-from array is usable again
  EXPECT_EQ(first.size(), 5u);
}

}  // namespace
}  // namespace trainscope
