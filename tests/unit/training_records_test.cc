// TrainingRecords: the column store of a log's records reads every record
// back exactly (hostile values included) and costs a few bytes a record
// for a regular log.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "model/training_log.h"

namespace trainscope {
namespace {

using model::MaybeDouble;
using model::MaybeInt;
using model::TrainingRecord;
using model::TrainingRecords;

constexpr MaybeDouble TrainingRecord::*kRecordsTestDoubles[] = {
    &TrainingRecord::loss,         &TrainingRecord::grad_norm, &TrainingRecord::step_time_ms,
    &TrainingRecord::tokens_per_s, &TrainingRecord::tflops,    &TrainingRecord::mfu_pct,
    &TrainingRecord::learning_rate};
constexpr MaybeInt TrainingRecord::*kRecordsTestInts[] = {
    &TrainingRecord::skipped_iterations, &TrainingRecord::nan_iterations, &TrainingRecord::wall_ns};

uint64_t BitsOfMaybe(MaybeDouble v) {
  return v ? std::bit_cast<uint64_t>(*v) : 0x7ff8'0000'dead'beefULL;
}

// Every field equal, numbers bit for bit (a NaN's payload, -0.0).
void ExpectSameRecord(const TrainingRecord& want, const TrainingRecord& got, size_t i) {
  SCOPED_TRACE(i);
  EXPECT_EQ(want.step, got.step);
  EXPECT_EQ(want.step_is_ordinal, got.step_is_ordinal);
  EXPECT_EQ(want.rank, got.rank);
  for (const auto field : kRecordsTestDoubles) {
    EXPECT_EQ(BitsOfMaybe(want.*field), BitsOfMaybe(got.*field));
  }
  for (const auto field : kRecordsTestInts) {
    EXPECT_EQ((want.*field).has_value(), (got.*field).has_value());
    EXPECT_EQ((want.*field).value_or(-7), (got.*field).value_or(-7));
  }
  EXPECT_EQ(want.offset, got.offset);
  EXPECT_EQ(want.line, got.line);
}

void ExpectStoreHolds(const std::vector<TrainingRecord>& want, TrainingRecords& store) {
  ASSERT_EQ(store.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ExpectSameRecord(want[i], store[i], i);
    EXPECT_EQ(store.step(i), want[i].step);
    EXPECT_EQ(store.line(i), want[i].line);
    EXPECT_EQ(store.step_is_ordinal(i), want[i].step_is_ordinal);
    for (const auto field : kRecordsTestDoubles) {
      EXPECT_EQ(BitsOfMaybe(store.get(i, field)), BitsOfMaybe(want[i].*field)) << i;
    }
    for (const auto field : kRecordsTestInts) {
      EXPECT_EQ(store.get(i, field).value_or(-7), (want[i].*field).value_or(-7)) << i;
    }
    if (::testing::Test::HasFailure()) return;
  }
  size_t i = 0;
  for (const TrainingRecord& r : store) {
    ExpectSameRecord(want[i], r, i);
    ++i;
  }
  EXPECT_EQ(i, want.size());
  std::vector<TrainingRecord> drained;
  store.Drain([&](const TrainingRecord& r) { drained.push_back(r); });
  EXPECT_TRUE(store.empty());
  ASSERT_EQ(drained.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) ExpectSameRecord(want[k], drained[k], k);
}

TEST(TrainingRecordsStore, HostileValuesReadBackExactly) {
  std::mt19937_64 rng(17);
  const int64_t extremes[] = {std::numeric_limits<int64_t>::max(),
                              std::numeric_limits<int64_t>::min() + 1, 0, -1, 1};
  const double odd[] = {std::numeric_limits<double>::quiet_NaN(),
                        -std::numeric_limits<double>::infinity(),
                        std::numeric_limits<double>::infinity(),
                        -0.0,
                        std::numeric_limits<double>::denorm_min(),
                        std::numeric_limits<double>::max(),
                        std::bit_cast<double>(uint64_t{0x7ff0'0000'0000'0001ULL})};
  std::vector<TrainingRecord> want;
  // Three full blocks and an open one: steps that jump across the whole
  // int64 range, fields present at random, more than 255 distinct numbers.
  for (size_t i = 0; i < 3 * TrainingRecords::kBlock + 77; ++i) {
    TrainingRecord r;
    r.step = (i % 5 == 0) ? extremes[rng() % 5] : static_cast<int64_t>(rng());
    r.step_is_ordinal = rng() % 2 == 0;
    r.rank = static_cast<int32_t>(rng() % 3 == 0 ? -1 : static_cast<int32_t>(rng()));
    for (const auto field : kRecordsTestDoubles) {
      const uint64_t pick = rng() % 4;
      if (pick == 0) continue;
      r.*field = pick == 1 ? odd[rng() % 7] : std::bit_cast<double>(rng() >> 2);
    }
    for (const auto field : kRecordsTestInts) {
      if (rng() % 3 == 0) r.*field = extremes[rng() % 5];
    }
    r.offset = static_cast<int64_t>(rng() >> 1);
    r.line = static_cast<int64_t>(i) * 3 + 1;
    want.push_back(r);
  }
  TrainingRecords store;
  for (const TrainingRecord& r : want) store.push_back(r);
  ExpectStoreHolds(want, store);
}

TEST(TrainingRecordsStore, DictionaryEdgesAndEmptyColumns) {
  // A block of exactly 255 distinct losses (the dictionary's limit), then
  // one of 256 (stored as numbers), then one with no loss at all.
  std::vector<TrainingRecord> want;
  for (size_t b = 0; b < 3; ++b) {
    const size_t distinct = b == 0 ? 255 : 256;
    for (size_t k = 0; k < TrainingRecords::kBlock; ++k) {
      TrainingRecord r;
      r.step = static_cast<int64_t>(want.size());
      r.line = r.step + 1;
      if (b < 2) r.loss = 1.0 + static_cast<double>(k % distinct) * 0.001;
      want.push_back(r);
    }
  }
  TrainingRecords store;
  for (const TrainingRecord& r : want) store.push_back(r);
  // The last record is amended in place (the reader's DeepSpeed latency).
  store.back().step_time_ms = 12.5;
  want.back().step_time_ms = 12.5;
  ExpectStoreHolds(want, store);
}

// A regular log ({"step": N, "loss": L} lines of similar length, losses
// printed to 4 decimals): a few bytes a record, not the record's 112.
TEST(TrainingRecordsStore, RegularLogCostsAFewBytesARecord) {
  constexpr size_t kRecords = 1'000'000;
  TrainingRecords store;
  std::mt19937_64 rng(3);
  int64_t offset = 0;
  for (size_t i = 0; i < kRecords; ++i) {
    TrainingRecord r;
    r.step = static_cast<int64_t>(i) + 1;
    r.line = static_cast<int64_t>(i) * 2 + 1;  // a chatter line between
    r.offset = offset;
    offset += 30 + static_cast<int64_t>(rng() % 4);
    r.loss = std::round((2.5 + static_cast<double>(rng() % 100) / 1e4) * 1e4) / 1e4;
    r.wall_ns = int64_t{1'700'000'000'000'000'000} + static_cast<int64_t>(i) * 1'000'000'000 +
                static_cast<int64_t>(rng() % 1000);
    store.push_back(r);
  }
  const double per_record =
      static_cast<double>(store.MemoryBytes()) / static_cast<double>(kRecords);
  std::printf("[ BYTES    ] %.2f bytes per record (a TrainingRecord: %zu)\n", per_record,
              sizeof(TrainingRecord));
  // step and line 0 bytes (a fixed interval), offset 1, loss 1 (100
  // distinct values a block), wall clock 2 (ms of jitter), rank and flags 0.
  EXPECT_LE(per_record, 6.0);
  EXPECT_EQ(store[kRecords / 2].step, static_cast<int64_t>(kRecords / 2) + 1);
  EXPECT_EQ(store.line(kRecords - 1), static_cast<int64_t>(kRecords - 1) * 2 + 1);
}

}  // namespace
}  // namespace trainscope
