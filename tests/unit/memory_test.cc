// The memory files of ASCEND_PROFILER_OUTPUT (memory_record.csv,
// operator_memory.csv, npu_module_mem.csv: both header generations, damaged
// rows counted), the exact MB/KB -> bytes conversion, and the step's memory
// (analysis/step/memory_usage) with the memory-fragmentation finding.
// Fixtures are written by hand from docs/ascend-formats.md 2.7-2.9.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "analysis/findings/memory_findings.h"
#include "analysis/step/memory_usage.h"
#include "core/numbers.h"
#include "formats/ascend/memory_readers.h"
#include "ledger_checks.h"
#include "model/rank_profile.h"
#include "threshold_findings_util.h"

namespace trainscope {
namespace {

using testing::ExpectLedgersAddUp;

constexpr int64_t kMiB = int64_t{1} << 20;

TEST(BinaryScaledBytes, ConvertsExactly) {
  EXPECT_EQ(ParseBinaryScaledBytes("954.3701171875", 20), 1000729600);  // 954 MiB + 388096 B
  EXPECT_EQ(ParseBinaryScaledBytes("18816.5", 10), 19268096);
  EXPECT_EQ(ParseBinaryScaledBytes("0.5", 10), 512);
  EXPECT_EQ(ParseBinaryScaledBytes("-32.5", 10), -33280);  // a release without its allocation
  EXPECT_EQ(ParseBinaryScaledBytes("1452.0", 20), 1452 * kMiB);
  EXPECT_EQ(ParseBinaryScaledBytes("12675.37109375\t", 20), 13291089920);
  // Not a multiple of a byte: rounded half away from zero.
  EXPECT_EQ(ParseBinaryScaledBytes("0.1", 20), 104858);  // 104857.6
  EXPECT_EQ(ParseBinaryScaledBytes("-0.1", 20), -104858);
  EXPECT_EQ(ParseBinaryScaledBytes("1e3", 10), 1024000);  // exponent: the double path
  EXPECT_FALSE(ParseBinaryScaledBytes("", 20).has_value());
  EXPECT_FALSE(ParseBinaryScaledBytes("N/A", 20).has_value());
  EXPECT_FALSE(ParseBinaryScaledBytes("12MB", 20).has_value());
  EXPECT_FALSE(ParseBinaryScaledBytes("99999999999999999999", 20).has_value());  // over int64
  EXPECT_FALSE(ParseBinaryScaledBytes("9000000000000", 20).has_value());         // 2^63 < bytes
}

// 2024+ header, CRLF, trailing TAB after times; APP rows with only
// Reserved; one row with a bad time, one short row.
constexpr const char* kMemoryRecord2024 =
    "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream "
    "Ptr,Device Type\r\n"
    "APP,1000.000\t,,4096.0,,,NPU:0\r\n"
    "PTA,1010.000\t,100.0,300.0,100.0,77,NPU:0\r\n"
    "PTA+GE,1010.000\t,110.0,310.0,110.0,77,NPU:0\r\n"
    "PTA,1020.000\t,250.5,300.0,250.5,77,NPU:0\r\n"
    "PTA,1030.000\t,150.0,400.0,150.0,88,NPU:0\r\n"
    "GE,1030.000\t,10.0,12.0,,,NPU:0\r\n"
    "PTA,oops,1.0,2.0,1.0,77,NPU:0\r\n"
    "PTA,1040.000\t,120.0\r\n"
    "PTA,1050.000\t,abc,400.0,,77,NPU:0\r\n";

// 2023 header: no Active, no Stream Ptr.
constexpr const char* kMemoryRecord2023 =
    "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Device Type\n"
    "PTA,2000,64.0,128.0,NPU:1\n"
    "PTA,1990,32.0,128.0,NPU:1\n";

TEST(MemoryRecordReader, ReadsBothHeadersAndCountsDamagedRows) {
  model::RankProfile profile;
  ASSERT_TRUE(formats::ParseMemoryRecord(kMemoryRecord2024, "memory_record.csv", &profile).ok());
  ASSERT_EQ(profile.ledgers.size(), 1u);
  const RowLedger& ledger = profile.ledgers[0];
  EXPECT_EQ(ledger.rows_read(), 9);
  EXPECT_EQ(ledger.rows_used(), 7);
  EXPECT_EQ(ledger.rows_skipped(), 2);
  EXPECT_EQ(ledger.skipped_by_reason().at("unparsable Timestamp"), 1);
  EXPECT_EQ(ledger.skipped_by_reason().at("wrong field count"), 1);
  EXPECT_EQ(ledger.notes_by_reason().at("unparsable Total Allocated"), 1);
  const auto& rows = profile.memory.records;
  ASSERT_EQ(rows.size(), 7u);
  EXPECT_EQ(rows[0].component, model::MemoryComponent::kApp);
  EXPECT_FALSE(rows[0].allocated_bytes.has_value());  // unknown, not 0
  EXPECT_EQ(rows[0].reserved_bytes, 4096 * kMiB);
  EXPECT_EQ(rows[0].ts_ns, 1'000'000);
  EXPECT_EQ(rows[2].component, model::MemoryComponent::kPtaGe);
  EXPECT_EQ(rows[3].allocated_bytes, 250 * kMiB + kMiB / 2);
  EXPECT_EQ(profile.strings.Get(rows[4].stream), "88");
  EXPECT_EQ(rows[5].component, model::MemoryComponent::kGe);
  EXPECT_FALSE(rows[6].allocated_bytes.has_value());  // "abc": noted, unknown
  EXPECT_TRUE(profile.memory.has_records);
  ExpectLedgersAddUp(profile);

  model::RankProfile old;
  ASSERT_TRUE(formats::ParseMemoryRecord(kMemoryRecord2023, "memory_record.csv", &old).ok());
  ASSERT_EQ(old.memory.records.size(), 2u);
  EXPECT_EQ(old.memory.records[0].ts_ns, 1'990'000);  // sorted by time
  EXPECT_EQ(old.memory.records[1].allocated_bytes, 64 * kMiB);
  EXPECT_FALSE(old.memory.records[1].active_bytes.has_value());
  EXPECT_EQ(old.memory.records[1].stream, StringPool::kEmpty);

  model::RankProfile bad;
  const Status status = formats::ParseMemoryRecord("Component,Total Reserved(MB)\nAPP,1\n",
                                                   "memory_record.csv", &bad);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("Timestamp(us)"), std::string::npos);
}

constexpr const char* kOperatorMemory2024 =
    "Name,Size(KB),Allocation Time(us),Release Time(us),Active Release Time(us),Duration(us),"
    "Active Duration(us),Allocation Total Allocated(MB),Allocation Total Reserved(MB),Allocation "
    "Total Active(MB),Release Total Allocated(MB),Release Total Reserved(MB),Release Total "
    "Active(MB),Stream Ptr,Device Type\n"
    "aten::empty_strided,1024.0,1010.000\t,1025.000\t,1025.000\t,15.0\t,15.0\t,100.0,300.0,100.0,"
    "99.0,300.0,99.0,77,NPU:0\n"
    "aten::mm,153600.5,1015.000\t,,,,,250.5,300.0,250.5,,,,77,NPU:0\n"
    "cann::weights,4096.0,1000.000\t,,,,,,,,,,,,NPU:0\n"
    "aten::add,-32.5,,1018.000\t,,,,,,,,,,77,NPU:0\n"
    "aten::bad,N/A,1012.000\t,,,,,,,,,,,77,NPU:0\n";

constexpr const char* kOperatorMemory2023 =
    "Name,Size(KB),Allocation Time(us),Release Time(us),Duration(us),Allocation Total "
    "Allocated(MB),Allocation Total Reserved(MB),Release Total Allocated(MB),Release Total "
    "Reserved(MB),Device Type\n"
    "aten::ones,2.0,5.5,6.5,1.0,0.5,2.0,0.498046875,2.0,NPU:0\n";

TEST(OperatorMemoryReader, ReadsBothHeadersAndCountsDamagedRows) {
  model::RankProfile profile;
  ASSERT_TRUE(
      formats::ParseOperatorMemory(kOperatorMemory2024, "operator_memory.csv", &profile).ok());
  const RowLedger& ledger = profile.ledgers[0];
  EXPECT_EQ(ledger.rows_read(), 5);
  EXPECT_EQ(ledger.rows_used(), 4);
  EXPECT_EQ(ledger.skipped_by_reason().at("unparsable Size"), 1);
  const auto& rows = profile.memory.operators;
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].size_bytes, 1024 * 1024);
  EXPECT_EQ(rows[0].alloc_ns, 1'010'000);
  EXPECT_EQ(rows[0].release_ns, 1'025'000);
  EXPECT_EQ(rows[0].release_total_allocated_bytes, 99 * kMiB);
  EXPECT_EQ(rows[1].size_bytes, 153600 * 1024 + 512);
  EXPECT_FALSE(rows[1].release_ns.has_value());  // outlived the capture
  EXPECT_EQ(rows[3].size_bytes, -33280);         // a release without its allocation
  EXPECT_FALSE(rows[3].alloc_ns.has_value());
  ExpectLedgersAddUp(profile);

  model::RankProfile old;
  ASSERT_TRUE(formats::ParseOperatorMemory(kOperatorMemory2023, "operator_memory.csv", &old).ok());
  ASSERT_EQ(old.memory.operators.size(), 1u);
  EXPECT_EQ(old.memory.operators[0].size_bytes, 2048);
  EXPECT_EQ(old.memory.operators[0].release_total_allocated_bytes, 522240);  // 0.498046875 MiB
  EXPECT_EQ(old.memory.operators[0].stream, StringPool::kEmpty);
}

TEST(NpuModuleMemReader, ReadsMbAndKbHeaders) {
  model::RankProfile profile;
  ASSERT_TRUE(formats::ParseNpuModuleMem("Device_id,Component,Timestamp(us),Total Reserved(MB),"
                                         "Device\n0,APP,1000.0\t,4096.5,NPU:0\n"
                                         "0,HCCL,1000.0\t,-1,NPU:0\n0,SLOG,,1.0,NPU:0\n",
                                         "npu_module_mem.csv", &profile)
                  .ok());
  EXPECT_EQ(profile.ledgers[0].rows_used(), 2);
  EXPECT_EQ(profile.ledgers[0].skipped_by_reason().at("missing Timestamp"), 1);
  ASSERT_EQ(profile.memory.modules.size(), 2u);
  EXPECT_EQ(profile.memory.modules[0].reserved_bytes, 4096 * kMiB + kMiB / 2);
  EXPECT_FALSE(profile.memory.modules[1].reserved_bytes.has_value());  // -1: unknown

  model::RankProfile kb;
  ASSERT_TRUE(formats::ParseNpuModuleMem("Component,Timestamp(us),Total Reserved(KB),Device\n"
                                         "RUNTIME,5,2048.5,NPU:0\n",
                                         "npu_module_mem.csv", &kb)
                  .ok());
  ASSERT_EQ(kb.memory.modules.size(), 1u);
  EXPECT_EQ(kb.memory.modules[0].reserved_bytes, 2048 * 1024 + 512);
  ExpectLedgersAddUp(kb);
}

// The step's memory over the fixtures above, computed by hand: PTA samples
// at 1010 (100/300 MiB), 1020 (250.5/300), 1030 (150/400, stream 88), 1050
// (unknown allocated / 400).
TEST(MemoryUsage, PeaksGapsHoldersAndModules) {
  model::RankProfile profile;
  ASSERT_TRUE(formats::ParseMemoryRecord(kMemoryRecord2024, "m.csv", &profile).ok());
  ASSERT_TRUE(formats::ParseOperatorMemory(kOperatorMemory2024, "o.csv", &profile).ok());
  ASSERT_TRUE(formats::ParseNpuModuleMem(
                  "Component,Timestamp(us),Total Reserved(MB),Device\nAPP,900,1000.0,NPU:0\n"
                  "APP,1015,1200.0,NPU:0\nHCCL,950,64.0,NPU:0\n",
                  "n.csv", &profile)
                  .ok());
  std::optional<analysis::MemoryUsage> m = analysis::ComputeMemoryUsage(profile, model::kNoStep);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->window_from, "capture");
  EXPECT_EQ(m->samples, 4);
  EXPECT_EQ(m->peak_allocated_bytes, 250 * kMiB + kMiB / 2);
  EXPECT_EQ(m->peak_allocated_ns, 1'020'000);
  EXPECT_EQ(m->peak_reserved_bytes, 400 * kMiB);
  EXPECT_EQ(m->gap_at_peak_bytes, 49 * kMiB + kMiB / 2);
  EXPECT_EQ(m->gap_min_bytes, 49 * kMiB + kMiB / 2);
  EXPECT_EQ(m->gap_max_bytes, 250 * kMiB);
  // Time-weighted: 200 MiB for 10 us, 49.5 MiB for 10 us; the last sample
  // (open window) weighs nothing.
  EXPECT_EQ(m->gap_mean_bytes, (200 * kMiB * 10 + (49 * kMiB + kMiB / 2) * 10) / 20);
  EXPECT_EQ(m->ge_peak_allocated_bytes, 10 * kMiB);
  EXPECT_EQ(m->app_peak_reserved_bytes, 4096 * kMiB);
  ASSERT_EQ(m->streams.size(), 2u);
  EXPECT_EQ(m->streams[0].stream, "77");
  EXPECT_EQ(m->streams[0].samples, 3);
  EXPECT_EQ(m->streams[0].allocations, 2);  // the bad-size row is skipped, the release has no time
  EXPECT_EQ(m->streams[1].stream, "88");
  // Live at 1020 us: the empty_strided (1010-1025) and the mm (1015-); the
  // cann:: row is GE memory, the release row has no allocation.
  EXPECT_EQ(m->live_at_peak_bytes, 1024 * 1024 + 153600 * 1024 + 512);
  ASSERT_EQ(m->top_holders.size(), 2u);
  EXPECT_EQ(m->top_holders[0].name, "aten::mm");
  ASSERT_EQ(m->modules.size(), 2u);
  EXPECT_EQ(m->modules[0].component, "APP");
  EXPECT_EQ(m->modules[0].reserved_bytes, 1200 * kMiB);

  // No memory data: unknown.
  model::RankProfile empty;
  EXPECT_FALSE(analysis::ComputeMemoryUsage(empty, model::kNoStep).has_value());
}

// A trace's [memory] events are read as 24-byte samples, memory_record.csv
// as rows with an optional per quantity: the same samples either way give
// the same memory, and the CPU's events are left out.
TEST(MemoryUsage, TraceSamplesAreMeasuredAsTheSameRecordRows) {
  model::RankProfile trace;
  model::RankProfile rows;
  const int64_t times[] = {5'000, 1'000, 3'000, 2'000, 4'000};  // out of order, as a trace's runs
  for (int k = 0; k < 5; ++k) {
    const int64_t allocated = (k + 1) * 10 * kMiB;
    const int64_t reserved = allocated + (5 - k) * kMiB;
    trace.timeline.memory.push_back(model::MemoryEvent{times[k], 1, 0, kMiB, allocated, reserved});
    trace.timeline.memory.push_back(
        model::MemoryEvent{times[k] + 1, 0, 0, kMiB, 900 * kMiB, 900 * kMiB});  // the CPU's
    model::MemoryRecordRow row;
    row.ts_ns = times[k];
    row.component = model::MemoryComponent::kPta;
    row.allocated_bytes = allocated;
    row.reserved_bytes = reserved;
    rows.memory.records.push_back(row);
  }
  std::sort(rows.memory.records.begin(), rows.memory.records.end(),
            [](const auto& a, const auto& b) { return a.ts_ns < b.ts_ns; });
  const std::optional<analysis::MemoryUsage> a =
      analysis::ComputeMemoryUsage(trace, model::kNoStep);
  const std::optional<analysis::MemoryUsage> b = analysis::ComputeMemoryUsage(rows, model::kNoStep);
  ASSERT_TRUE(a.has_value() && b.has_value());
  EXPECT_EQ(a->samples_from, "kineto [memory]");
  EXPECT_EQ(a->samples, 5);
  EXPECT_EQ(a->samples, b->samples);
  EXPECT_EQ(a->peak_allocated_bytes, 50 * kMiB);
  EXPECT_EQ(a->peak_allocated_bytes, b->peak_allocated_bytes);
  EXPECT_EQ(a->peak_allocated_ns, b->peak_allocated_ns);
  EXPECT_EQ(a->peak_reserved_bytes, b->peak_reserved_bytes);
  EXPECT_EQ(a->gap_at_peak_bytes, b->gap_at_peak_bytes);
  EXPECT_EQ(a->gap_min_bytes, b->gap_min_bytes);
  EXPECT_EQ(a->gap_max_bytes, b->gap_max_bytes);
  EXPECT_EQ(a->gap_mean_bytes, b->gap_mean_bytes);
  EXPECT_EQ(a->window_start_ns, b->window_start_ns);
  EXPECT_EQ(a->window_end_ns, b->window_end_ns);
  ASSERT_EQ(a->curve.size(), b->curve.size());
  for (size_t i = 0; i < a->curve.size(); ++i) {
    EXPECT_EQ(a->curve[i].ts_ns, b->curve[i].ts_ns) << i;
    EXPECT_EQ(a->curve[i].allocated_bytes, b->curve[i].allocated_bytes) << i;
    EXPECT_EQ(a->curve[i].reserved_bytes, b->curve[i].reserved_bytes) << i;
  }
  EXPECT_EQ(a->curve.front().ts_ns, 1'000);
}

// memory-fragmentation over the fixture: the smallest gap, 49.5 MiB, is
// 12.4% of the 400 MiB peak reserved, on two Stream Ptr pools.
TEST(MemoryFragmentation, FiresAtTheThresholdAndNamesSwitchesAlreadySet) {
  model::RankProfile profile;
  ASSERT_TRUE(formats::ParseMemoryRecord(kMemoryRecord2024, "m.csv", &profile).ok());
  analysis::StepDistribution step;
  step.memory = analysis::ComputeMemoryUsage(profile, model::kNoStep);
  analysis::FindingThresholds t = analysis::FindingCatalog::Builtin().thresholds();
  ASSERT_DOUBLE_EQ(t.fragmentation_min_gap_share, 0.1);
  std::vector<analysis::Finding> found = analysis::MemoryFindings(step, profile, t);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].id, "memory-fragmentation");
  EXPECT_EQ(found[0].variant, "streams");
  EXPECT_EQ(found[0].estimated_gain_pct, 0);
  bool pct_seen = false;
  for (const auto& [key, value] : found[0].evidence_values) {
    if (key == "gap_min_pct") {
      EXPECT_NEAR(value, 49.5 / 400 * 100, 1e-9);
      pct_seen = true;
    }
  }
  EXPECT_TRUE(pct_seen);
  profile.info.env["PYTORCH_NPU_ALLOC_CONF"] = "expandable_segments:True";
  profile.info.env["MULTI_STREAM_MEMORY_REUSE"] = "0";  // off: not named
  found = analysis::MemoryFindings(step, profile, t);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].variant, "streams+tuned");
  ASSERT_EQ(found[0].text_labels.size(), 1u);
  EXPECT_EQ(found[0].text_labels[0].second, "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True");
  // Above the share: quiet; without memory data: quiet.
  t.fragmentation_min_gap_share = 0.13;
  EXPECT_TRUE(analysis::MemoryFindings(step, profile, t).empty());
  step.memory.reset();
  EXPECT_TRUE(analysis::MemoryFindings(step, profile, t).empty());
}

}  // namespace
}  // namespace trainscope
