// The memory files (memory_record.csv, operator_memory.csv,
// npu_module_mem.csv) of the real public samples, and the step's memory
// (analysis/step/memory_usage) against an independent computation.
//
// The pinned numbers come from a python3 script over the raw CSVs (csv
// module, fractions.Fraction for MB/KB -> bytes, so no float rounding):
//   window: the ProfilerStep#N event of trace_view.json ([ts, ts + dur),
//   ts parsed as decimal us -> ns) when the rank has one, else every sample
//   (the Qwen ranks have one step, 13, and no trace_view.json);
//   PTA rows (Component == "PTA") in the window, sorted by time;
//   peak_allocated = max Total Allocated(MB) * 2^20 (first sample reaching
//   it), peak_reserved = max Total Reserved(MB) * 2^20;
//   gap = reserved - allocated per sample: at the peak, min, max, and the
//   mean weighted by the time to the next sample (the last sample until the
//   window's end), rounded to the byte;
//   live at peak: operator_memory.csv rows not named cann::*, Size(KB) > 0,
//   Allocation Time <= peak time < Release Time (or no release), summed;
//   the top holder is the name with the largest sum.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "analysis/step/memory_usage.h"
#include "formats/ascend/ascend_rank_loader.h"
#include "formats/ascend_db/ascend_db_reader.h"
#include "formats/trace/kineto_reader.h"
#include "ledger_checks.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

namespace fs = std::filesystem;

struct MemoryCase {
  const char* rank_dir;
  int32_t step;
  const char* window_from;
  int64_t record_rows, operator_rows, module_rows;  // data rows of each file
  int64_t samples;
  int64_t peak_allocated, peak_allocated_ns, peak_reserved;
  int64_t gap_at_peak, gap_min, gap_max, gap_mean;
  size_t streams;
  int64_t live_at_peak;
  const char* top_holder;
  int64_t top_holder_bytes;
};

TEST(MemoryCorpus, PeaksAndGapsMatchAnIndependentComputation) {
  TS_REQUIRE_CORPUS("ascend");
  const MemoryCase cases[] = {
      {"ascend/msinsight-pytorch-2rank-text-level0/rank0_ascend_pt", 50, "host step", 1003, 184,
       1001, 381, 1245688832, 1736405443921184280, 1522532352, 276843520, 276843520, 629283840,
       485748897, 2, 510196224, "aten::_foreach_add", 245276160},
      {"ascend/msinsight-pytorch-2rank-text-level0/rank1_ascend_pt", 50, "host step", 1003, 184,
       1001, 381, 1245688832, 1736405443938069830, 1522532352, 276843520, 276843520, 629283840,
       478918150, 2, 510196224, "aten::_foreach_add", 245276160},
      {"ascend/msinsight-pytorch-2rank-text-level1/rank0_ascend_pt", 50, "host step", 1004, 184,
       1078, 381, 1245688832, 1736408883743242970, 1522532352, 276843520, 276843520, 629283840,
       490766425, 2, 510196224, "aten::_foreach_add", 245276160},
      {"ascend/msinsight-pytorch-2rank-text-level1/rank1_ascend_pt", 50, "host step", 1004, 184,
       1078, 381, 1245688832, 1736408883748929220, 1522532352, 276843520, 276843520, 629283840,
       489075250, 2, 510196224, "aten::_foreach_add", 245276160},
      {"ascend/msinsight-pytorch-2rank-text-level2/rank0_ascend_pt", 50, "host step", 1003, 184,
       1001, 381, 1245688832, 1736412474768167450, 1522532352, 276843520, 276843520, 629283840,
       489613389, 2, 510196224, "aten::_foreach_add", 245276160},
      {"ascend/msinsight-pytorch-2rank-text-level2/rank1_ascend_pt", 50, "host step", 1004, 184,
       1078, 381, 1245688832, 1736412474770649300, 1522532352, 276843520, 276843520, 629283840,
       487888093, 2, 510196224, "aten::_foreach_add", 245276160},
      {"ascend/msinsight-st-qwen3-0.6b-4rank-level2-cann8.3.RC1/rank_0_ascend_pt", 13,
       "device steps", 18659, 3103, 3465, 9309, 10782243840, 1764246877390971790, 10875830272,
       93586432, 93586432, 6361755648, 3351595006, 1, 6268169216, "aten::matmul", 2315284480},
      {"ascend/msinsight-st-qwen3-0.6b-4rank-level2-cann8.3.RC1/rank_2_ascend_pt", 13,
       "device steps", 19396, 3226, 3465, 9678, 11343561216, 1764246877462252050, 11395923968,
       52362752, 52362752, 6873444864, 5628212534, 1, 6829471744, "npu::_npu_dtype_cast",
       2548069376},
  };
  for (const MemoryCase& c : cases) {
    SCOPED_TRACE(c.rank_dir);
    Result<model::RankProfile> loaded = formats::LoadAscendRank(corpus_path + "/" + c.rank_dir);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    const model::RankProfile& profile = *loaded;
    const RowLedger* records = LedgerFor(profile, "memory_record.csv");
    const RowLedger* operators = LedgerFor(profile, "operator_memory.csv");
    const RowLedger* modules = LedgerFor(profile, "npu_module_mem.csv");
    ASSERT_NE(records, nullptr);
    ASSERT_NE(operators, nullptr);
    ASSERT_NE(modules, nullptr);
    // Every row of the real files is used.
    EXPECT_EQ(records->rows_read(), c.record_rows);
    EXPECT_EQ(records->rows_used(), c.record_rows);
    EXPECT_EQ(operators->rows_used(), c.operator_rows);
    EXPECT_EQ(modules->rows_used(), c.module_rows);

    const std::optional<analysis::MemoryUsage> m = analysis::ComputeMemoryUsage(profile, c.step);
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->window_from, c.window_from);
    EXPECT_EQ(m->samples, c.samples);
    EXPECT_EQ(m->peak_allocated_bytes, c.peak_allocated);
    EXPECT_EQ(m->peak_allocated_ns, c.peak_allocated_ns);
    EXPECT_EQ(m->peak_reserved_bytes, c.peak_reserved);
    EXPECT_EQ(m->gap_at_peak_bytes, c.gap_at_peak);
    EXPECT_EQ(m->gap_min_bytes, c.gap_min);
    EXPECT_EQ(m->gap_max_bytes, c.gap_max);
    ASSERT_TRUE(m->gap_mean_bytes.has_value());
    // Accumulated in double: within a byte of the exact rational mean.
    EXPECT_NEAR(static_cast<double>(*m->gap_mean_bytes), static_cast<double>(c.gap_mean), 1.0);
    EXPECT_EQ(m->streams.size(), c.streams);
    EXPECT_EQ(m->live_at_peak_bytes, c.live_at_peak);
    ASSERT_FALSE(m->top_holders.empty());
    EXPECT_EQ(m->top_holders[0].name, c.top_holder);
    EXPECT_EQ(m->top_holders[0].bytes, c.top_holder_bytes);
    EXPECT_FALSE(m->modules.empty());
  }
}

// HTA's V100 trace with profile_memory=1: its [memory] events of device
// memory (Device Type 1; the 1,240 CPU ones left out) per ProfilerStep#N
// window, computed the same way in python3 (json + gzip; ts us -> ns). The
// PyTorch allocator reserves 11.9 GiB for a 6.2 GiB allocated peak, the same
// pattern in every step.
TEST(MemoryCorpus, KinetoMemoryEventsMatchAnIndependentComputation) {
  TS_REQUIRE_CORPUS("kineto/hta_v100_2rank_job_rank1_memory");
  model::RankProfile profile;
  const Status status = formats::ReadKinetoTrace(
      corpus_path + "/kineto/hta_v100_2rank_job_rank1_memory/df_index_resolver.json.gz", &profile);
  ASSERT_TRUE(status.ok()) << status.message();
  struct Step {
    int32_t step;
    int64_t peak_ns, gap_mean;
  };
  const Step steps[] = {{2, 1669783687579130000, 6994275063},
                        {3, 1669783687938883000, 6984782673},
                        {4, 1669783688292492000, 6998955093},
                        {5, 1669783688638483000, 6982350413},
                        {6, 1669783688971568000, 6980462739}};
  for (const Step& s : steps) {
    SCOPED_TRACE(s.step);
    const std::optional<analysis::MemoryUsage> m = analysis::ComputeMemoryUsage(profile, s.step);
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->samples_from, "kineto [memory]");
    EXPECT_EQ(m->window_from, "host step");
    EXPECT_EQ(m->samples, 5354);
    EXPECT_EQ(m->peak_allocated_bytes, 6629508096);
    EXPECT_EQ(m->peak_allocated_ns, s.peak_ns);
    EXPECT_EQ(m->peak_reserved_bytes, 12782141440);
    EXPECT_EQ(m->gap_at_peak_bytes, 6152633344);
    EXPECT_EQ(m->gap_min_bytes, 6152633344);
    EXPECT_EQ(m->gap_max_bytes, 8685527040);
    ASSERT_TRUE(m->gap_mean_bytes.has_value());
    EXPECT_NEAR(static_cast<double>(*m->gap_mean_bytes), static_cast<double>(s.gap_mean), 1.0);
    EXPECT_TRUE(m->streams.empty());
    EXPECT_FALSE(m->live_at_peak_bytes.has_value());  // no operator_memory.csv: unknown
    // Activation memory (python3 likewise: the step's first
    // autograd::engine::evaluate_function op, the last device [memory]
    // event at or before it, minus the step's first): 1.22 GiB in every
    // step; the V100's totalGlobalMem is the capacity.
    EXPECT_EQ(m->start_allocated_bytes, 4121780224);
    EXPECT_EQ(m->backward_allocated_bytes, 5430395904);
    EXPECT_EQ(m->activation_bytes, 1308615680);
    EXPECT_EQ(m->capacity_bytes, 34089730048);
    EXPECT_EQ(m->capacity_from, "deviceProperties totalGlobalMem");
    EXPECT_EQ(m->headroom_bytes, 34089730048 - 12782141440);
  }
}

// The .db export of the same run as the text-level0/level1 samples (same
// 381 PTA samples and peaks): its memory tables give the numbers the CSVs
// give. Pinned with the sqlite3 CLI over the raw tables (PTA rows of
// MEMORY_RECORD joined to STRING_IDS: count, max(totalAllocated),
// max(totalReserved), min/max(totalReserved - totalAllocated), distinct
// streamPtr; the first timestamp at the max; OP_MEMORY rows not cann::,
// size > 0, allocationTime <= peak < releaseTime or NULL, summed and by name).
TEST(MemoryCorpus, DbExportMemoryTablesMatchAnIndependentComputation) {
  TS_REQUIRE_CORPUS("ascend/msinsight-pytorch-2rank-db-level1");
  Result<model::RankProfile> loaded = formats::LoadAscendDbRank(
      corpus_path + "/ascend/msinsight-pytorch-2rank-db-level1/rank0_ascend_pt");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const model::RankProfile& p = *loaded;
  for (const RowLedger& ledger : p.ledgers) {
    EXPECT_EQ(ledger.rows_read(), ledger.rows_used() + ledger.rows_skipped()) << ledger.file();
  }
  EXPECT_EQ(p.memory.records.size(), 990u + 14u);  // MEMORY_RECORD + NPU_MEM's app rows
  EXPECT_EQ(p.memory.operators.size(), 184u);
  EXPECT_EQ(p.memory.modules.size(), 1078u);
  EXPECT_EQ(p.info.device_name, "Ascend910B");
  const std::optional<analysis::MemoryUsage> m = analysis::ComputeMemoryUsage(p, model::kNoStep);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->samples, 381);
  EXPECT_EQ(m->peak_allocated_bytes, 1245688832);
  EXPECT_EQ(m->peak_allocated_ns, 1736410576442657420);
  EXPECT_EQ(m->peak_reserved_bytes, 1522532352);
  EXPECT_EQ(m->gap_min_bytes, 276843520);
  EXPECT_EQ(m->gap_max_bytes, 629283840);
  EXPECT_EQ(m->streams.size(), 2u);
  EXPECT_EQ(m->live_at_peak_bytes, 510196224);
  ASSERT_FALSE(m->top_holders.empty());
  EXPECT_EQ(m->top_holders[0].name, "aten::_foreach_add");
  EXPECT_EQ(m->top_holders[0].bytes, 245276160);
  // Plain "Ascend910B" does not say the variant (32 or 64 GB): unknown.
  EXPECT_FALSE(m->capacity_bytes.has_value());
  EXPECT_FALSE(m->headroom_bytes.has_value());
}

}  // namespace
}  // namespace trainscope::testing
