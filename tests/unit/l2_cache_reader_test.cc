// l2_cache.csv: the reader from hand-made fixtures written from
// docs/ascend-formats.md 2.10 (never copied from the corpus), and the
// rank's summary the reports show.
#include "formats/ascend/l2_cache_reader.h"

#include <gtest/gtest.h>

#include <string>

#include "analysis/common/l2_cache.h"
#include "model/rank_profile.h"

namespace trainscope {
namespace {

// The documented header, with N/A hit rates, an unparsable rate, a rate
// outside [0, 1] and a row with a field missing.
constexpr const char* kL2Cache =
    "Stream Id,Task Id,Hit Rate,Victim Rate,Op Name\n"
    "2,100,N/A,0.25,MatMulV2_1\n"
    "2,101,0.8,0.1,MatMulV2_1\n"
    "2,102,0.4,N/A,MatMulV2_1\n"
    "3,7,0.9,0.05,Add_3\n"
    "3,8,abc,0.5,Add_3\n"   // unparsable hit rate: noted, unknown
    "3,9,1.5,0.2,Cast_4\n"  // out of [0, 1]: noted, unknown
    "3,10,0.5,Cast_4\n";    // wrong field count: skipped

TEST(L2CacheReader, ReadsRatesAndKeepsUnknownUnknown) {
  model::RankProfile profile;
  ASSERT_TRUE(formats::ParseL2Cache(kL2Cache, "l2_cache.csv", &profile).ok());
  EXPECT_TRUE(profile.has_l2_cache);
  ASSERT_EQ(profile.l2_cache.size(), 6u);
  const model::L2CacheRow& first = profile.l2_cache[0];
  EXPECT_EQ(profile.strings.Get(first.op_name), "MatMulV2_1");
  EXPECT_EQ(first.stream_id, 2);
  EXPECT_EQ(first.task_id, 100);
  EXPECT_FALSE(first.hit_rate.has_value());  // N/A: unknown, not 0
  EXPECT_DOUBLE_EQ(*first.victim_rate, 0.25);
  EXPECT_DOUBLE_EQ(*profile.l2_cache[1].hit_rate, 0.8);
  EXPECT_FALSE(profile.l2_cache[2].victim_rate.has_value());
  EXPECT_FALSE(profile.l2_cache[4].hit_rate.has_value());
  EXPECT_FALSE(profile.l2_cache[5].hit_rate.has_value());

  ASSERT_EQ(profile.ledgers.size(), 1u);
  const RowLedger& ledger = profile.ledgers[0];
  EXPECT_EQ(ledger.rows_read(), 7);
  EXPECT_EQ(ledger.rows_used(), 6);
  EXPECT_EQ(ledger.rows_skipped(), 1);
  EXPECT_TRUE(ledger.Balanced());
  EXPECT_EQ(ledger.skipped_by_reason().at("wrong field count"), 1);
  EXPECT_EQ(ledger.notes_by_reason().at("unparsable Hit Rate"), 1);
  EXPECT_EQ(ledger.notes_by_reason().at("Hit Rate out of range"), 1);
}

TEST(L2CacheReader, ReadsTheDeviceIdHeader) {
  model::RankProfile profile;
  ASSERT_TRUE(formats::ParseL2Cache("Device_id,Stream Id,Task Id,Hit Rate,Victim Rate,Op Name\n"
                                    "0,2,5,0.75,0.125,Conv2D\n",
                                    "l2_cache.csv", &profile)
                  .ok());
  ASSERT_EQ(profile.l2_cache.size(), 1u);
  EXPECT_DOUBLE_EQ(*profile.l2_cache[0].hit_rate, 0.75);
  EXPECT_EQ(profile.strings.Get(profile.l2_cache[0].op_name), "Conv2D");
}

TEST(L2CacheReader, AHeaderWithoutOpNameNamesTheFile) {
  model::RankProfile profile;
  const Status status = formats::ParseL2Cache("Stream Id,Task Id,Hit Rate\n1,2,0.5\n",
                                              "rank0/l2_cache.csv", &profile);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("rank0/l2_cache.csv"), std::string::npos);
  EXPECT_NE(status.message().find("Op Name"), std::string::npos);
  EXPECT_FALSE(profile.has_l2_cache);
}

TEST(L2CacheSummary, MeansOverKnownRatesWeightedByKernelTime) {
  model::RankProfile profile;
  ASSERT_TRUE(formats::ParseL2Cache(kL2Cache, "l2_cache.csv", &profile).ok());
  // Kernels of the same names: MatMulV2_1 300 us, Add_3 100 us in all.
  auto add = [&](const char* name, int64_t start_ns, int64_t duration_ns) {
    model::DeviceEvent event;
    event.name = profile.strings.Intern(name);
    event.start_ns = start_ns;
    event.duration_ns = duration_ns;
    profile.device_events.Append(event);
  };
  add("MatMulV2_1", 0, 200'000);
  add("MatMulV2_1", 300'000, 100'000);
  add("Add_3", 500'000, 100'000);
  std::optional<analysis::L2CacheSummary> l2 = analysis::SummarizeL2Cache(profile);
  ASSERT_TRUE(l2.has_value());
  EXPECT_EQ(l2->tasks, 6);
  EXPECT_EQ(l2->tasks_with_hit_rate, 3);  // 0.8, 0.4, 0.9
  EXPECT_NEAR(*l2->mean_hit_rate, (0.8 + 0.4 + 0.9) / 3, 1e-12);
  EXPECT_NEAR(*l2->mean_victim_rate, (0.25 + 0.1 + 0.05 + 0.5 + 0.2) / 5, 1e-12);
  // MatMulV2_1 mean 0.6 over 300 us, Add_3 0.9 over 100 us.
  EXPECT_NEAR(*l2->time_weighted_hit_rate, (0.6 * 300 + 0.9 * 100) / 400, 1e-12);
  ASSERT_EQ(l2->lowest_hit_ops.size(), 2u);
  EXPECT_EQ(l2->lowest_hit_ops[0].name, "MatMulV2_1");
  EXPECT_EQ(l2->lowest_hit_ops[0].tasks, 2);
  EXPECT_NEAR(l2->lowest_hit_ops[0].mean_hit_rate, 0.6, 1e-12);
  EXPECT_EQ(l2->lowest_hit_ops[1].name, "Add_3");
}

TEST(L2CacheSummary, NoFileIsNoSummaryAndAllNaIsUnknown) {
  model::RankProfile none;
  EXPECT_FALSE(analysis::SummarizeL2Cache(none).has_value());
  model::RankProfile all_na;
  ASSERT_TRUE(formats::ParseL2Cache("Stream Id,Task Id,Hit Rate,Victim Rate,Op Name\n"
                                    "2,1,N/A,0.5,A\n2,2,N/A,N/A,B\n",
                                    "l2_cache.csv", &all_na)
                  .ok());
  std::optional<analysis::L2CacheSummary> l2 = analysis::SummarizeL2Cache(all_na);
  ASSERT_TRUE(l2.has_value());
  EXPECT_EQ(l2->tasks, 2);
  EXPECT_EQ(l2->tasks_with_hit_rate, 0);
  EXPECT_FALSE(l2->mean_hit_rate.has_value());
  EXPECT_FALSE(l2->time_weighted_hit_rate.has_value());
  EXPECT_DOUBLE_EQ(*l2->mean_victim_rate, 0.5);
  EXPECT_TRUE(l2->lowest_hit_ops.empty());
}

}  // namespace
}  // namespace trainscope
