#include "core/sorted_runs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace trainscope {
namespace {

// (key, original position): a stable sort by key keeps positions ascending
// among equal keys, so the result is compared with std::stable_sort's.
using Item = std::pair<int, int>;
bool KeyLess(const Item& a, const Item& b) { return a.first < b.first; }

std::vector<Item> Numbered(const std::vector<int>& keys) {
  std::vector<Item> items;
  for (size_t i = 0; i < keys.size(); ++i) items.emplace_back(keys[i], static_cast<int>(i));
  return items;
}

void ExpectSameAsStableSort(const std::vector<int>& keys) {
  std::vector<Item> expected = Numbered(keys);
  std::stable_sort(expected.begin(), expected.end(), KeyLess);
  std::vector<Item> got = Numbered(keys);
  StableSortNearlySorted(got.begin(), got.end(), KeyLess);
  EXPECT_EQ(got, expected);
}

// |runs| one after the other, each key repeated |times| times: the runs
// stay ascending, the repeats are equal keys whose order must hold, and
// the range is long enough for the run merging (short or many-run ranges
// go to std::stable_sort).
std::vector<int> Runs(const std::vector<std::vector<int>>& runs, int times = 12) {
  std::vector<int> keys;
  for (const std::vector<int>& run : runs) {
    for (int key : run) keys.insert(keys.end(), static_cast<size_t>(times), key);
  }
  return keys;
}

TEST(StableSortNearlySorted, EmptyOneAndSortedRangesAreLeftAsTheyAre) {
  ExpectSameAsStableSort({});
  ExpectSameAsStableSort({7});
  ExpectSameAsStableSort(Runs({{1, 1, 2, 3, 3, 3, 9}}));
}

TEST(StableSortNearlySorted, OverlappingRunsMergeAndEqualKeysKeepTheirOrder) {
  // Two interleaved streams, as a trace's memory samples of two threads.
  ExpectSameAsStableSort(Runs({{1, 3, 5, 5, 7, 9}, {2, 3, 5, 6, 10}}));
  // Runs that only touch at equal keys, and one run inside another.
  ExpectSameAsStableSort(Runs({{1, 2, 4, 4}, {4, 5, 8}, {3, 4, 4}}));
  // Three runs (an odd one out in the first pass), then one past them all.
  ExpectSameAsStableSort(Runs({{5, 6, 7}, {1, 2, 3, 4}, {0, 9}, {10, 11}}));
  // Runs already in order after the first pass's merges.
  ExpectSameAsStableSort(Runs({{2, 4}, {1, 3}, {6, 8}, {5, 7}, {9}}));
  // Short ranges and many runs: std::stable_sort's path, same result.
  ExpectSameAsStableSort({3, 2, 1});
  ExpectSameAsStableSort({1, 3, 5, 5, 7, 9, 2, 3, 5, 6, 10});
}

TEST(StableSortNearlySorted, CapturesFollowingEachOtherAndRandomDataAgreeWithStableSort) {
  std::mt19937 random(20261203);
  // Twenty "captures" in time order, each of three overlapping runs with
  // many equal keys; then wholly random keys (the std::stable_sort path).
  std::vector<int> captures;
  for (int capture = 0; capture < 20; ++capture) {
    for (int run = 0; run < 3; ++run) {
      int key = capture * 1000;
      for (int i = 0; i < 200; ++i) {
        key += static_cast<int>(random() % 4);
        captures.push_back(key);
      }
    }
  }
  ExpectSameAsStableSort(captures);
  std::vector<int> noise(5000);
  for (int& key : noise) key = static_cast<int>(random() % 100);
  ExpectSameAsStableSort(noise);
  // Indices sorted by a key column, as the trace reader sorts its rows.
  std::vector<int64_t> start(3000);
  for (size_t i = 0; i < start.size(); ++i) start[i] = static_cast<int64_t>((i * 7919) % 1500);
  std::vector<uint32_t> order(start.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::vector<uint32_t> expected = order;
  auto by_start = [&start](uint32_t a, uint32_t b) { return start[a] < start[b]; };
  std::stable_sort(expected.begin(), expected.end(), by_start);
  StableSortNearlySorted(order.begin(), order.end(), by_start);
  EXPECT_EQ(order, expected);
}

}  // namespace
}  // namespace trainscope
