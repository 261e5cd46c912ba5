// Items made on worker threads and used in order (core/ordered_work.h): every
// item is used once, in order, made in its own slot; the makers never run
// more than the slots ahead; items offered later are waited for; the end of
// the items is found by a claim; a maker's exception reaches the caller; a
// caller that stops early does not hang.
#include "core/ordered_work.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

namespace trainscope {
namespace {

struct WorkItem {
  int64_t index = -1;
  int64_t value = 0;
  unsigned maker = 0;
};

std::vector<std::unique_ptr<WorkItem>> WorkItemSlots(size_t n) {
  return OrderedWork<WorkItem>::NewSlots(n, [] { return std::make_unique<WorkItem>(); });
}

// Uneven work: later items are often made before earlier ones.
void SleepOnEveryThird(int64_t index) {
  if (index % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
}

TEST(OrderedWork, EveryItemIsUsedOnceInOrderAndNoMakerRunsPastTheSlots) {
  constexpr int64_t kItems = 500;
  for (const unsigned workers : {0u, 1u, 3u}) {
    for (const bool help : {false, true}) {
      std::atomic<int64_t> used{0};
      int64_t most_ahead = 0;  // claims run under the window's lock
      std::vector<int64_t> seen;
      OrderedWork<WorkItem> work(
          WorkItemSlots(4), workers,
          [&](int64_t index, WorkItem*) {
            if (index >= kItems) return ClaimAnswer::kNoMore;
            most_ahead = std::max(most_ahead, index - used.load());
            return ClaimAnswer::kTaken;
          },
          [&](unsigned maker, int64_t index, WorkItem* item) {
            SleepOnEveryThird(index);
            item->index = index;
            item->value = index * index;
            item->maker = maker;
          });
      while (WorkItem* item = work.Take(help)) {
        EXPECT_EQ(item->value, item->index * item->index);
        EXPECT_EQ(item, work.SlotOf(item->index)) << "item k is made in slot k % slots";
        seen.push_back(item->index);
        used.fetch_add(1);
        work.Release();
      }
      ASSERT_EQ(seen.size(), static_cast<size_t>(kItems)) << workers << " workers, help " << help;
      for (int64_t i = 0; i < kItems; ++i) EXPECT_EQ(seen[static_cast<size_t>(i)], i);
      // Item k is claimed only once item k - 4 is released: at most 3
      // items past the one the caller uses (4 with its own).
      EXPECT_LE(most_ahead, 3) << workers << " workers";
      EXPECT_EQ(work.Take(help), nullptr) << "the end stays the end";
    }
  }
}

TEST(OrderedWork, TheCallerMakesItemsWhenItHelpsOrNoWorkerRuns) {
  for (const unsigned workers : {0u, 2u}) {
    std::atomic<int64_t> by_caller{0};
    std::atomic<int64_t> made{0};
    OrderedWork<WorkItem> work(
        WorkItemSlots(3), workers,
        [](int64_t index, WorkItem*) {
          return index < 50 ? ClaimAnswer::kTaken : ClaimAnswer::kNoMore;
        },
        [&](unsigned maker, int64_t index, WorkItem* item) {
          if (maker == workers) by_caller.fetch_add(1);
          made.fetch_add(1);
          SleepOnEveryThird(index);
          item->index = index;
        });
    int64_t next = 0;
    while (WorkItem* item = work.Take(/*help=*/true)) {
      EXPECT_EQ(item->index, next++);
      work.Release();
    }
    EXPECT_EQ(next, 50);
    EXPECT_EQ(made.load(), 50) << "every item made once, " << workers << " workers";
    // With no worker the caller is maker 0 and makes all 50.
    if (workers == 0) {
      EXPECT_EQ(by_caller.load(), 50);
    }
  }
}

TEST(OrderedWork, ItemsOfferedLaterAreWaitedFor) {
  // The caller fills each slot itself and offers it (the log's lines).
  int64_t offered = 0;  // written by the caller under the lock (Change)
  OrderedWork<WorkItem> work(
      WorkItemSlots(2), 2,
      [&](int64_t index, WorkItem*) {
        return index < offered ? ClaimAnswer::kTaken : ClaimAnswer::kNotYet;
      },
      [](unsigned, int64_t, WorkItem* item) { item->value = item->index * 10; });
  int64_t used = 0;
  for (int64_t i = 0; i < 20; ++i) {
    if (i - used == static_cast<int64_t>(work.slots())) {
      WorkItem* item = work.Take(/*help=*/false);
      ASSERT_NE(item, nullptr);
      EXPECT_EQ(item->value, used * 10);
      work.Release();
      ++used;
    }
    work.SlotOf(i)->index = i;
    work.Change([&] { ++offered; });
  }
  while (used < 20) {
    WorkItem* item = work.Take(/*help=*/true);
    ASSERT_NE(item, nullptr);
    EXPECT_EQ(item->value, used * 10);
    work.Release();
    ++used;
  }
}

TEST(OrderedWork, AMakersExceptionReachesTheCaller) {
  for (const bool help : {false, true}) {
    OrderedWork<WorkItem> work(
        WorkItemSlots(4), 2, [](int64_t, WorkItem*) { return ClaimAnswer::kTaken; },
        [](unsigned, int64_t index, WorkItem* item) {
          if (index == 7) throw std::runtime_error("item 7");
          item->index = index;
        });
    int64_t used = 0;
    try {
      while (work.Take(help) != nullptr) {
        work.Release();
        ++used;
      }
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "item 7");
    }
    EXPECT_LE(used, 7);
  }
}

TEST(OrderedWork, AnExceptionOfTheHelpingCallerStopsTheWork) {
  // The caller's own make throws: the item is never made, and a caller that
  // goes on gets the exception again instead of waiting for it.
  OrderedWork<WorkItem> work(
      WorkItemSlots(2), 0, [](int64_t, WorkItem*) { return ClaimAnswer::kTaken; },
      [](unsigned, int64_t index, WorkItem* item) {
        if (index == 2) throw std::runtime_error("item 2");
        item->index = index;
      });
  ASSERT_NE(work.Take(/*help=*/true), nullptr);
  work.Release();
  ASSERT_NE(work.Take(/*help=*/true), nullptr);
  work.Release();
  EXPECT_THROW(work.Take(/*help=*/true), std::runtime_error);
  EXPECT_THROW(work.Take(/*help=*/true), std::runtime_error);
}

TEST(OrderedWork, AClaimsExceptionReachesTheCaller) {
  OrderedWork<WorkItem> work(
      WorkItemSlots(2), 1,
      [](int64_t index, WorkItem*) {
        if (index == 3) throw std::runtime_error("claim 3");
        return ClaimAnswer::kTaken;
      },
      [](unsigned, int64_t index, WorkItem* item) { item->index = index; });
  EXPECT_THROW(
      {
        while (work.Take(/*help=*/false) != nullptr) work.Release();
      },
      std::runtime_error);
}

TEST(OrderedWork, ACallerThatStopsEarlyDoesNotHang) {
  // Endless items: the destructor stops the workers mid-stream.
  OrderedWork<WorkItem> work(
      WorkItemSlots(3), 2, [](int64_t, WorkItem*) { return ClaimAnswer::kTaken; },
      [](unsigned, int64_t index, WorkItem* item) { item->index = index; });
  for (int64_t i = 0; i < 10; ++i) {
    WorkItem* item = work.Take(/*help=*/false);
    ASSERT_NE(item, nullptr);
    EXPECT_EQ(item->index, i);
    work.Release();
  }
}

}  // namespace
}  // namespace trainscope
