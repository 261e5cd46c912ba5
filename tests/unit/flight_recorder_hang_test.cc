// Matching flight-recorder dumps by process group and collective_seq_id
// (analysis/health/flight_recorder.h): entries without a sequence id cannot
// be matched and are left out; a member that recorded no collective of the
// group has an unknown last sequence id, not 0.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "analysis/health/flight_recorder.h"

namespace trainscope::analysis {
namespace {

model::FlightRecorderEntry Entry(std::optional<int64_t> seq, std::string state) {
  model::FlightRecorderEntry e;
  e.pg_name = "0";
  e.pg_desc = "default_pg";
  e.collective_seq_id = seq;
  e.profiling_name = "nccl:all_reduce";
  e.state = std::move(state);
  return e;
}

model::FlightRecorderDump Dump(int64_t rank, std::vector<model::FlightRecorderEntry> entries) {
  model::FlightRecorderDump d;
  d.rank = rank;
  d.pg_ranks["0"] = {0, 1, 2};
  d.entries = std::move(entries);
  return d;
}

TEST(FlightRecorderHang, EntriesWithoutASeqIdAreNotMatchedAndUnknownStaysUnknown) {
  // Rank 0 reached #5 and is still in it; rank 1 stopped at #4; rank 2's
  // only entry has no sequence id (a damaged dump): it recorded no
  // collective of the group that can be placed.
  const std::vector<model::FlightRecorderDump> dumps = {
      Dump(0, {Entry(4, "completed"), Entry(5, "started"), Entry(std::nullopt, "started")}),
      Dump(1, {Entry(4, "completed")}),
      Dump(2, {Entry(std::nullopt, "completed")}),
  };
  const FlightRecorderReport report = AnalyzeFlightRecorder(dumps);
  ASSERT_EQ(report.hangs.size(), 1U);
  const CollectiveHang& h = report.hangs[0];
  EXPECT_EQ(h.seq, 5);
  EXPECT_EQ(h.arrived, std::vector<int64_t>{0});
  ASSERT_EQ(h.missing.size(), 2U);
  EXPECT_EQ(h.missing[0].rank, 1);
  EXPECT_EQ(h.missing[0].last_seq, 4);
  EXPECT_EQ(h.missing[1].rank, 2);
  EXPECT_FALSE(h.missing[1].last_seq.has_value());
  EXPECT_TRUE(h.missing[1].last_op.empty());
}

}  // namespace
}  // namespace trainscope::analysis
