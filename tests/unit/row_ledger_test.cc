// RowLedger and the row-issue catalogue: the three counts are independent,
// so a row neither used nor skipped shows; every key is documented.
#include "core/row_ledger.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "formats/ascend/kernel_details_reader.h"
#include "formats/ascend/op_statistic_reader.h"
#include "formats/ascend/step_trace_reader.h"
#include "formats/trace/kineto_reader.h"
#include "model/rank_profile.h"
#include "test_paths.h"

namespace trainscope {
namespace {

TEST(RowLedgerTest, CountsAreIndependent) {
  RowLedger ledger("f.csv");
  ledger.CountRead(4);
  ledger.Use(2);
  ledger.Skip(RowIssue::kNegativeValue, "Computing", 3, "-1");
  EXPECT_FALSE(ledger.Balanced());  // one row read, neither used nor skipped
  EXPECT_EQ(ledger.rows_skipped(), 1);
  EXPECT_NE(LedgerImbalance(ledger).find("read 4, used 2, skipped 1 (1 unaccounted)"),
            std::string::npos);
  ledger.Skip(RowIssue::kCsvWrongFieldCount, 4, "got 2 fields, header has 3");
  EXPECT_TRUE(ledger.Balanced());
  EXPECT_TRUE(LedgerImbalance(ledger).empty());
  // Notes never count as skipped rows.
  ledger.Note(RowIssue::kUnparsableField, "Wait Time", 2, "zz");
  EXPECT_EQ(ledger.rows_skipped(), 2);
  EXPECT_EQ(ledger.notes_by_reason().at("unparsable Wait Time"), 1);
  EXPECT_EQ(ledger.skipped_by_reason().at("negative Computing"), 1);
}

TEST(RowLedgerTest, KeysAreTheCatalogueStrings) {
  EXPECT_EQ(RowIssueKey(RowIssue::kCsvNulByte), "NUL byte in the record");
  EXPECT_EQ(RowIssueKey(RowIssue::kValueOutOfRange, "Free"), "Free out of range");
  EXPECT_EQ(RowIssueKey(RowIssue::kMissingValue, "start time"), "missing start time");
  EXPECT_EQ(RowIssueKey(RowIssue::kBadDur), "bad dur (0 used)");
}

TEST(RowLedgerTest, EveryCatalogueKeyIsDocumented) {
  const std::string doc = testing::ReadFileBytes(testing::SourceDir() + "/docs/ingest.md");
  ASSERT_FALSE(doc.empty());
  std::set<std::string> seen;
  for (size_t i = 0; i < static_cast<size_t>(RowIssue::kCount); ++i) {
    const RowIssueInfo& info = kRowIssues[i];
    EXPECT_FALSE(info.description.empty()) << info.key;
    const std::string kind = info.kind == RowIssueKind::kSkip ? "skip" : "note";
    // A key is one table row: | `key` | kind | ...
    const std::string row = "| `" + std::string(info.key) + "` | " + kind + " |";
    EXPECT_NE(doc.find(row), std::string::npos) << "docs/ingest.md lacks: " << row;
    EXPECT_TRUE(seen.insert(std::string(info.key) + kind).second) << "duplicate " << info.key;
  }
}

// Damaged fixtures: each reader counts every record read on its own, so
// the exact counts per reason below would fail if a reader dropped a row.
TEST(RowLedgerTest, DamagedCsvFixturesBalanceWithExactReasons) {
  model::RankProfile profile;
  ASSERT_TRUE(formats::ParseStepTraceTime("Step,Computing,Communication,Free\n"
                                          "1,10,5,1\n"
                                          "x,10,5,1\n"      // unparsable Step
                                          "2,-1,5,1\n"      // negative Computing
                                          "3,10,5\n"        // wrong field count
                                          "4,10,abc,1\n"    // note, kept
                                          "5,10,5,1e30\n",  // unparsable (overflow): note
                                          "step.csv", &profile)
                  .ok());
  ASSERT_TRUE(
      formats::ParseOpStatistic("OP Type,Count,Total Time(us),Avg Time(us)\n"
                                "MatMul,2,10,5\n"
                                "Add,,10,5\n"                 // unparsable Count
                                "Mul,1,5000000000000000,5\n"  // 5e18 ns: Total Time out of range
                                "Div,1,1,-5\n",               // negative Avg Time
                                "op.csv", &profile)
          .ok());
  const RowLedger& step = profile.ledgers.at(0);
  EXPECT_EQ(step.rows_read(), 6);
  EXPECT_EQ(step.rows_used(), 3);
  EXPECT_EQ(step.skipped_by_reason(),
            (std::map<std::string, int64_t>{
                {"negative Computing", 1}, {"unparsable Step", 1}, {"wrong field count", 1}}));
  EXPECT_EQ(step.notes_by_reason(), (std::map<std::string, int64_t>{{"unparsable Communication", 1},
                                                                    {"unparsable Free", 1}}));
  EXPECT_TRUE(step.Balanced());
  const RowLedger& op = profile.ledgers.at(1);
  EXPECT_EQ(op.rows_read(), 4);
  EXPECT_EQ(op.rows_used(), 1);
  EXPECT_EQ(op.skipped_by_reason(), (std::map<std::string, int64_t>{{"Total Time out of range", 1},
                                                                    {"negative Avg Time", 1},
                                                                    {"unparsable Count", 1}}));
  EXPECT_TRUE(op.Balanced());
}

TEST(RowLedgerTest, TiniestFixtureKernelCountsAreCountedNotDerived) {
  model::RankProfile profile;
  ASSERT_TRUE(formats::ReadKernelDetailsFile(
                  testing::DataDir() + "/ascend_tiny/rank_0_ascend_pt/ASCEND_PROFILER_OUTPUT/"
                                       "kernel_details.csv",
                  &profile)
                  .ok());
  const RowLedger& ledger = profile.ledgers.at(0);
  // Records in the file, counted here from its bytes (no field of the
  // fixture spans lines): what the reader must have read.
  const std::string bytes =
      testing::ReadFileBytes(testing::DataDir() +
                             "/ascend_tiny/rank_0_ascend_pt/ASCEND_PROFILER_OUTPUT/"
                             "kernel_details.csv");
  int64_t lines = std::count(bytes.begin(), bytes.end(), '\n');
  if (!bytes.empty() && bytes.back() != '\n') ++lines;
  EXPECT_EQ(ledger.rows_read(), lines - 1);  // less the header
  EXPECT_EQ(ledger.rows_used(), static_cast<int64_t>(profile.device_events.size()));
  EXPECT_TRUE(ledger.Balanced());
}

TEST(RowLedgerTest, TraceEventsBalanceWithExactReasons) {
  const std::string json = R"({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 2},
    {"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": 5, "dur": 20},
    {"ph": "C", "name": "mem", "pid": 1, "tid": 1, "ts": 6},
    {"ph": "i", "name": "marker", "pid": 1, "tid": 1, "ts": 7},
    {"ph": "X", "cat": "cpu_op", "name": "late", "pid": 1, "tid": 1, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "bad", "pid": 1, "tid": 1, "ts": 8, "dur": "x"},
    {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "python"}},
    5
  ]})";
  model::RankProfile p;
  ASSERT_TRUE(formats::ParseKinetoTrace(json, "t.json", &p).ok());
  const RowLedger& l = p.ledgers.back();
  EXPECT_EQ(l.rows_read(), 8);
  EXPECT_EQ(l.rows_used(), 4);  // kernel, op, bad (dur noted), metadata
  EXPECT_EQ(
      l.skipped_by_reason(),
      (std::map<std::string, int64_t>{
          {"counter", 1}, {"event is not an object", 1}, {"instant event", 1}, {"missing ts", 1}}));
  EXPECT_EQ(l.notes_by_reason().at("bad dur (0 used)"), 1);
  EXPECT_TRUE(l.Balanced());
}

}  // namespace
}  // namespace trainscope
