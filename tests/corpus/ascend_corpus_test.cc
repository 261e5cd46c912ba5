// Cross-checks of the Ascend readers against the real public samples in
// shared/corpus/ascend (see docs/ascend-formats.md section 5).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <utility>

#include "corpus/corpus_inputs.h"
#include "formats/ascend/ascend_rank_loader.h"
#include "formats/ascend/kernel_details_reader.h"
#include "formats/csv/csv_reader.h"
#include "formats/load_profiles.h"
#include "formats/profile_discovery.h"
#include "ledger_checks.h"
#include "test_paths.h"

namespace trainscope::formats {
namespace {

using testing::LedgerFor;

using testing::ExpectLedgersAddUp;

struct KernelFileCase {
  const char* path;  // under the corpus dir
  int64_t rows_used;
  int64_t rows_skipped;
};

// The CSV reader's fast path (csv_reader.h NextFast) on every CSV of the
// real samples: the same records as the byte-by-byte path, and the rows of
// each kernel_details.csv (quoted shapes with doubled quotes, trailing TABs,
// CRLF in some) almost all on the fast path, where the speed is.
TEST(AscendCorpusTest, EveryCsvReadsAlikeOnBothReaderPaths) {
  TS_REQUIRE_CORPUS("ascend");
  size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(corpus_path + "/ascend")) {
    if (!entry.is_regular_file() || entry.path().extension() != ".csv") continue;
    ++files;
    const std::string data = testing::ReadFileBytes(entry.path().string());
    CsvReader fast(data);
    CsvReader slow(data);
    slow.set_fast_path(false);
    CsvRecord a;
    CsvRecord b;
    uint64_t records = 0;
    while (fast.Next(&a)) {
      ASSERT_TRUE(slow.Next(&b)) << entry.path();
      ASSERT_EQ(a.fields, b.fields) << entry.path() << " line " << a.line;
      ASSERT_EQ(a.line, b.line) << entry.path();
      ASSERT_EQ(a.problem, b.problem) << entry.path() << " line " << a.line;
      ++records;
    }
    EXPECT_FALSE(slow.Next(&b)) << entry.path();
    if (entry.path().filename() == "kernel_details.csv") {
      EXPECT_GE(fast.fast_records() * 100, records * 99) << entry.path();
    }
  }
  EXPECT_GE(files, 10U);
}

TEST(AscendCorpusTest, EveryKernelDetailsSampleParses) {
  TS_REQUIRE_CORPUS("ascend");
  const KernelFileCase cases[] = {
      {"ascend/msinsight-pytorch-2rank-text-level0/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/"
       "kernel_details.csv",
       191, 0},
      {"ascend/msinsight-pytorch-2rank-text-level0/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/"
       "kernel_details.csv",
       191, 0},
      {"ascend/msinsight-pytorch-2rank-text-level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/"
       "kernel_details.csv",
       191, 0},
      {"ascend/msinsight-pytorch-2rank-text-level1/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/"
       "kernel_details.csv",
       191, 0},
      {"ascend/msinsight-pytorch-2rank-text-level2/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/"
       "kernel_details.csv",
       191, 0},
      {"ascend/msinsight-pytorch-2rank-text-level2/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/"
       "kernel_details.csv",
       191, 0},
      {"ascend/msinsight-st-qwen3-0.6b-4rank-level2-cann8.3.RC1/rank_0_ascend_pt/"
       "ASCEND_PROFILER_OUTPUT/kernel_details.csv",
       2463, 0},
      {"ascend/msinsight-st-qwen3-0.6b-4rank-level2-cann8.3.RC1/rank_2_ascend_pt/"
       "ASCEND_PROFILER_OUTPUT/kernel_details.csv",
       2587, 0},
      // Line 17 (a FlashAttentionScore row) of this hand-assembled 2023 fixture
      // has 31 fields for a 32-column header: one value was dropped when the
      // fixture was made. It is skipped as "wrong field count".
      {"ascend/msinsight-server-testdata-gpt3-2rank-oldformat/test_rank_0/ASCEND_PROFILER_OUTPUT/"
       "kernel_details.csv",
       20, 1},
      {"ascend/msinsight-server-testdata-gpt3-2rank-oldformat/test_rank_1/ASCEND_PROFILER_OUTPUT/"
       "kernel_details.csv",
       22, 0},
      {"ascend/mstt-msprof-analyze-testdata/advisor_backend_compute_advice/kernel_details.csv", 591,
       0},
      {"ascend/mstt-msprof-analyze-testdata/advisor_compute_advice_data/kernel_details.csv", 29, 0},
  };
  for (const KernelFileCase& c : cases) {
    SCOPED_TRACE(c.path);
    model::RankProfile profile;
    Status status = ReadKernelDetailsFile(corpus_path + "/" + c.path, &profile);
    ASSERT_TRUE(status.ok()) << status.message();
    ASSERT_EQ(profile.ledgers.size(), 1u);
    const RowLedger& ledger = profile.ledgers[0];
    EXPECT_EQ(ledger.rows_used(), c.rows_used);
    EXPECT_EQ(ledger.rows_skipped(), c.rows_skipped);
    if (c.rows_skipped > 0) {
      EXPECT_EQ(ledger.skipped_by_reason().at("wrong field count"), c.rows_skipped);
      ASSERT_FALSE(ledger.samples().empty());
      EXPECT_EQ(ledger.samples()[0].line, 17);
    }
    EXPECT_TRUE(ledger.notes_by_reason().empty());
    EXPECT_TRUE(profile.warnings.empty());
    EXPECT_EQ(profile.device_events.size(), static_cast<size_t>(c.rows_used));
    ExpectLedgersAddUp(profile);
    for (size_t i = 1; i < profile.device_events.size(); ++i) {
      ASSERT_LE(profile.device_events.start_ns[i - 1], profile.device_events.start_ns[i]);
    }
  }
}

// Level0 derives op types from names; Level1/Level2 of the same job give
// them. For every kernel name in both, the derivation must give the type
// the profiler gave, so both levels agree on types,
// families and motifs.
TEST(AscendCorpusTest, Level0DerivedTypesMatchLevel1And2GivenTypes) {
  TS_REQUIRE_CORPUS("ascend/msinsight-pytorch-2rank-text-level0");
  std::map<std::string, std::string> given;  // name -> Type from Level1/Level2
  for (const char* level : {"level1", "level2"}) {
    for (const char* rank : {"rank0_ascend_pt", "rank1_ascend_pt"}) {
      auto r = LoadAscendRank(corpus_path + "/ascend/msinsight-pytorch-2rank-text-" + level + "/" +
                              rank);
      ASSERT_TRUE(r.ok()) << r.status().message();
      for (size_t i = 0; i < r->device_events.size(); ++i) {
        ASSERT_FALSE(r->device_events.op_type_derived[i]);
        given[std::string(r->strings.Get(r->device_events.name[i]))] =
            r->strings.Get(r->device_events.op_type[i]);
      }
    }
  }
  size_t compared = 0;
  for (const char* rank : {"rank0_ascend_pt", "rank1_ascend_pt"}) {
    auto r = LoadAscendRank(corpus_path + "/ascend/msinsight-pytorch-2rank-text-level0/" + rank);
    ASSERT_TRUE(r.ok()) << r.status().message();
    for (size_t i = 0; i < r->device_events.size(); ++i) {
      const std::string name(r->strings.Get(r->device_events.name[i]));
      auto it = given.find(name);
      if (it == given.end()) continue;
      ++compared;
      EXPECT_EQ(r->strings.Get(r->device_events.op_type[i]), it->second) << name;
    }
  }
  EXPECT_GT(compared, 300u);  // 191 kernels a rank, almost all named alike in every level
}

TEST(AscendCorpusTest, Level0TypesAreDerivedFromNames) {
  TS_REQUIRE_CORPUS("ascend/msinsight-pytorch-2rank-text-level0");
  Result<model::RankProfile> result =
      LoadAscendRank(corpus_path + "/ascend/msinsight-pytorch-2rank-text-level0/rank0_ascend_pt");
  ASSERT_TRUE(result.ok()) << result.status().message();
  const model::RankProfile& profile = *result;
  EXPECT_EQ(profile.rank, 0);
  EXPECT_EQ(profile.info.profiler_level, "Level0");
  size_t derived = 0;
  size_t comm = 0;
  std::map<std::string, int> types;
  for (size_t i = 0; i < profile.device_events.size(); ++i) {
    derived += profile.device_events.op_type_derived[i];
    if (profile.device_events.kind[i] == model::ActivityKind::kCommunication) {
      ++comm;
      EXPECT_EQ(profile.strings.Get(profile.device_events.op_type[i]), "hcom_allReduce_");
    }
    ++types[std::string(profile.strings.Get(profile.device_events.op_type[i]))];
  }
  EXPECT_EQ(derived, profile.device_events.size());  // Level0: every Type is N/A
  EXPECT_EQ(comm, 4u);                               // the four hcom_allReduce__868_* rows
  EXPECT_GT(types["TransData"], 0);
  EXPECT_GT(types["Conv2D"], 0);
  EXPECT_EQ(profile.step_trace.size(), 1u);
  // Level0 has no op_statistic.csv.
  bool op_statistic_missing = false;
  for (const std::string& missing : profile.missing_files) {
    op_statistic_missing |= missing.rfind("op_statistic.csv (Level1+ only", 0) == 0;
  }
  EXPECT_TRUE(op_statistic_missing);
  ExpectLedgersAddUp(profile);
}

// Sums kernel_details by (Type, Accelerator Core) for compute rows, as
// op_statistic does (it has no HCCL/COMMUNICATION rows).
std::map<std::pair<std::string, std::string>, std::pair<int64_t, int64_t>> AggregateByType(
    const model::RankProfile& profile) {
  std::map<std::pair<std::string, std::string>, std::pair<int64_t, int64_t>> agg;
  const model::DeviceEvents& k = profile.device_events;
  for (size_t i = 0; i < k.size(); ++i) {
    if (k.kind[i] == model::ActivityKind::kCommunication) continue;
    auto& entry = agg[{std::string(profile.strings.Get(k.op_type[i])),
                       std::string(profile.strings.Get(k.accelerator[i]))}];
    ++entry.first;
    entry.second += k.duration_ns[i];
  }
  return agg;
}

TEST(AscendCorpusTest, QwenRank0CommunicationMatchesStepTrace) {
  TS_REQUIRE_CORPUS(testing::kQwenLevel2Job);
  Result<model::RankProfile> result =
      LoadAscendRank(corpus_path + "/" + testing::kQwenLevel2Job + "/rank_0_ascend_pt");
  ASSERT_TRUE(result.ok()) << result.status().message();
  const model::RankProfile& profile = *result;
  int64_t comm_ns = 0;
  int comm_rows = 0;
  for (size_t i = 0; i < profile.device_events.size(); ++i) {
    if (profile.device_events.kind[i] != model::ActivityKind::kCommunication) continue;
    EXPECT_EQ(profile.strings.Get(profile.device_events.accelerator[i]), "COMMUNICATION");
    comm_ns += profile.device_events.duration_ns[i];
    ++comm_rows;
  }
  ASSERT_EQ(profile.step_trace.size(), 1u);
  const model::StepTraceRow& step = profile.step_trace[0];
  EXPECT_EQ(step.step, 13);
  EXPECT_EQ(step.device_id, 0);
  EXPECT_EQ(step.communication_ns, 420174260);  // "420174.2600000001" us
  EXPECT_EQ(comm_rows, 15);
  EXPECT_NEAR(static_cast<double>(comm_ns), static_cast<double>(step.communication_ns), 10.0);
  EXPECT_EQ(comm_ns, 420174260);  // observed: exact
  // Computing + Comm(Not Overlapped) + Free should equal Stage (the three
  // tracks partition the step window), but torch_npu computes Stage as
  // last end - first start on float microsecond timestamps (ULP ~0.25 us at
  // 1.7e15 us) while the tracks are sums of float durations: observed
  // 810022.36 us vs 810022.25 us, a 110 ns difference.
  EXPECT_EQ(step.computing_ns + step.communication_not_overlapped_ns + step.free_ns - step.stage_ns,
            110);
  EXPECT_EQ(profile.info.cann_version, "8.3.RC1");
  EXPECT_EQ(profile.info.torch_npu_version, "2.7.1");
  EXPECT_EQ(profile.info.world_size, 4);
  EXPECT_EQ(profile.info.parallel_sizes.at("pipeline_model_parallel_size"), 2);
  ExpectLedgersAddUp(profile);
}

TEST(AscendCorpusTest, QwenOpStatisticAgreesExactlyWithKernelDetails) {
  TS_REQUIRE_CORPUS(testing::kQwenLevel2Job);
  for (const char* rank_dir : {"rank_0_ascend_pt", "rank_2_ascend_pt"}) {
    SCOPED_TRACE(rank_dir);
    Result<model::RankProfile> result =
        LoadAscendRank(corpus_path + "/" + testing::kQwenLevel2Job + "/" + rank_dir);
    ASSERT_TRUE(result.ok()) << result.status().message();
    auto agg = AggregateByType(*result);
    // 35 op types on rank 0, 46 on rank 2; every count and total agrees to
    // the nanosecond (CANN 8.3 writes both from the same rounded values).
    EXPECT_EQ(result->op_statistic.size(), std::string(rank_dir) == "rank_0_ascend_pt" ? 35u : 46u);
    EXPECT_EQ(agg.size(), result->op_statistic.size());
    for (const model::OpStatisticRow& row : result->op_statistic) {
      auto it = agg.find({row.op_type, row.core_type});
      ASSERT_NE(it, agg.end()) << row.op_type;
      EXPECT_EQ(it->second.first, row.count) << row.op_type;
      EXPECT_EQ(it->second.second, row.total_ns) << row.op_type;
    }
  }
}

TEST(AscendCorpusTest, ResNetOpStatisticAgreesWithinRounding) {
  TS_REQUIRE_CORPUS("ascend/msinsight-pytorch-2rank-text-level1");
  // Observed number of op types whose total matches to the ns, per rank dir.
  // The others differ by a few ns: op_statistic rounds the sum of the raw
  // durations to 0.001 us once, kernel_details rounds every duration, so the
  // difference is bounded by count * 0.5 ns (largest seen: 7 ns over the 57
  // TransData ops). Counts always agree.
  const std::pair<const char*, int> cases[] = {
      {"ascend/msinsight-pytorch-2rank-text-level1/rank0_ascend_pt", 24},
      {"ascend/msinsight-pytorch-2rank-text-level1/rank1_ascend_pt", 24},
      {"ascend/msinsight-pytorch-2rank-text-level2/rank0_ascend_pt", 22},
      {"ascend/msinsight-pytorch-2rank-text-level2/rank1_ascend_pt", 22},
  };
  for (const auto& [dir, exact_expected] : cases) {
    SCOPED_TRACE(dir);
    Result<model::RankProfile> result = LoadAscendRank(corpus_path + "/" + dir);
    ASSERT_TRUE(result.ok()) << result.status().message();
    auto agg = AggregateByType(*result);
    ASSERT_EQ(result->op_statistic.size(), 33u);
    EXPECT_EQ(agg.size(), 33u);
    int exact = 0;
    for (const model::OpStatisticRow& row : result->op_statistic) {
      auto it = agg.find({row.op_type, row.core_type});
      ASSERT_NE(it, agg.end()) << row.op_type;
      EXPECT_EQ(it->second.first, row.count) << row.op_type;
      const int64_t diff = std::llabs(it->second.second - row.total_ns);
      EXPECT_LE(diff * 2, row.count) << row.op_type;
      exact += diff == 0;
    }
    EXPECT_EQ(exact, exact_expected);
  }
}

TEST(AscendCorpusTest, QwenJobLoadsAllFourRanks) {
  TS_REQUIRE_CORPUS(testing::kQwenLevel2Job);
  Result<LoadedProfiles> result = LoadProfiles({corpus_path + "/" + testing::kQwenLevel2Job}, 2);
  ASSERT_TRUE(result.ok()) << result.status().message();
  ASSERT_EQ(result->profiles.size(), 4u);
  const int32_t devices[] = {0, 1, 4, 5};  // Device_id is the physical device, not the rank
  const int64_t communication_ns[] = {420174260, 441708380, 277649660, 261498440};
  for (int rank = 0; rank < 4; ++rank) {
    const model::RankProfile& profile = result->profiles[rank];
    SCOPED_TRACE(profile.source_dir);
    EXPECT_EQ(profile.rank, rank);
    ASSERT_EQ(profile.step_trace.size(), 1u);
    EXPECT_EQ(profile.step_trace[0].device_id, devices[rank]);
    EXPECT_EQ(profile.step_trace[0].communication_ns, communication_ns[rank]);
    ExpectLedgersAddUp(profile);
    if (rank == 1 || rank == 3) {
      // The upstream snapshot has no kernel_details.csv for these ranks.
      EXPECT_EQ(profile.device_events.size(), 0u);
      ASSERT_FALSE(profile.missing_files.empty());
      EXPECT_EQ(profile.missing_files[0].rfind("kernel_details.csv", 0), 0u);
      EXPECT_EQ(LedgerFor(profile, "kernel_details.csv"), nullptr);
    } else {
      EXPECT_GT(profile.device_events.size(), 2000u);
      EXPECT_NE(LedgerFor(profile, "op_statistic.csv"), nullptr);
    }
  }
}

TEST(AscendCorpusTest, EveryTextSetIsDiscoveredAndLoaded) {
  TS_REQUIRE_CORPUS("ascend");
  const std::pair<const char*, size_t> sets[] = {
      {"ascend/msinsight-pytorch-2rank-text-level0", 2},
      {"ascend/msinsight-pytorch-2rank-text-level1", 2},
      {"ascend/msinsight-pytorch-2rank-text-level2", 2},
      {"ascend/msinsight-server-testdata-gpt3-2rank-oldformat", 2},  // test_rank_0/1
  };
  for (const auto& [dir, ranks] : sets) {
    SCOPED_TRACE(dir);
    Result<LoadedProfiles> result = LoadProfiles({corpus_path + "/" + dir}, 2);
    ASSERT_TRUE(result.ok()) << result.status().message();
    ASSERT_EQ(result->profiles.size(), ranks);
    for (size_t i = 0; i < ranks; ++i) {
      EXPECT_EQ(result->profiles[i].rank, static_cast<int32_t>(i));
      EXPECT_GT(result->profiles[i].device_events.size(), 0u);
      EXPECT_EQ(result->profiles[i].step_trace.size(), 1u);
      EXPECT_TRUE(result->profiles[i].warnings.empty());
      ExpectLedgersAddUp(result->profiles[i]);
    }
  }
}

}  // namespace
}  // namespace trainscope::formats
