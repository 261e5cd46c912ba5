// l2_cache.csv on the real 2-rank text exports. Every number was
// computed with python3's csv module over the raw files:
//   rows = list(csv.DictReader(open(f))); len(rows);
//   [r for r in rows if r['Hit Rate'] != 'N/A'];  mean(float(r['Victim Rate']))
// All 179 hit rates of every file are N/A: unknown, so no mean hit rate.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "analysis/common/l2_cache.h"
#include "formats/ascend/ascend_rank_loader.h"
#include "test_paths.h"

namespace trainscope::formats {
namespace {

TEST(L2CacheCorpusTest, ReadsEveryRowOfTheTextExports) {
  TS_REQUIRE_CORPUS("ascend/msinsight-pytorch-2rank-text-level0");
  struct Expected {
    const char* rank_dir;
    double mean_victim_rate;
  };
  const Expected kExpected[] = {
      {"msinsight-pytorch-2rank-text-level0/rank0_ascend_pt", 0.11581577094972065},
      {"msinsight-pytorch-2rank-text-level0/rank1_ascend_pt", 0.1173418547486034},
      {"msinsight-pytorch-2rank-text-level1/rank0_ascend_pt", 0.12458244692737436},
      {"msinsight-pytorch-2rank-text-level1/rank1_ascend_pt", 0.11547512849162014},
  };
  for (const Expected& expected : kExpected) {
    SCOPED_TRACE(expected.rank_dir);
    auto r = LoadAscendRank(corpus_path + "/ascend/" + expected.rank_dir);
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_TRUE(r->has_l2_cache);
    ASSERT_EQ(r->l2_cache.size(), 179u);
    std::set<StringId> names;
    for (const model::L2CacheRow& row : r->l2_cache) names.insert(row.op_name);
    EXPECT_EQ(names.size(), 75u);
    const RowLedger* ledger = nullptr;
    for (const RowLedger& l : r->ledgers) {
      if (l.file().find("l2_cache.csv") != std::string::npos) ledger = &l;
    }
    ASSERT_NE(ledger, nullptr);
    EXPECT_EQ(ledger->rows_read(), 179);
    EXPECT_EQ(ledger->rows_used(), 179);
    EXPECT_TRUE(ledger->notes_by_reason().empty());
    bool listed_read = false;
    for (const model::InputFile& file : r->inventory) {
      if (file.path == "ASCEND_PROFILER_OUTPUT/l2_cache.csv") listed_read = file.read;
    }
    EXPECT_TRUE(listed_read);

    std::optional<analysis::L2CacheSummary> l2 = analysis::SummarizeL2Cache(*r);
    ASSERT_TRUE(l2.has_value());
    EXPECT_EQ(l2->tasks, 179);
    EXPECT_EQ(l2->tasks_with_hit_rate, 0);
    EXPECT_FALSE(l2->mean_hit_rate.has_value());
    EXPECT_FALSE(l2->time_weighted_hit_rate.has_value());
    ASSERT_TRUE(l2->mean_victim_rate.has_value());
    EXPECT_NEAR(*l2->mean_victim_rate, expected.mean_victim_rate, 1e-12);
  }
}

}  // namespace
}  // namespace trainscope::formats
