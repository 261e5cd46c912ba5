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
  e.pg_name = model::SharedValue<std::string>::Own("0");
  e.pg_desc = model::SharedValue<std::string>::Own("default_pg");
  e.collective_seq_id = seq;
  e.profiling_name = model::SharedValue<std::string>::Own("nccl:all_reduce");
  e.state = model::SharedValue<std::string>::Own(std::move(state));
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

TEST(FlightRecorderHang, ScheduledEntriesAreJudgedByPgStatusNotByTheirState) {
  // Every member recorded #5, "scheduled" (timing off: torch leaves entries
  // "scheduled" after they completed). pg_status, keyed by pg_id, decides.
  const auto at5 = [](int64_t rank, std::optional<int64_t> last_completed) {
    model::FlightRecorderEntry e = Entry(5, "scheduled");
    e.pg_id = 3;
    model::FlightRecorderDump d = Dump(rank, {e});
    if (last_completed) d.pg_status["3"].last_completed = last_completed;
    return d;
  };
  // All completed it: no hang.
  EXPECT_TRUE(AnalyzeFlightRecorder({at5(0, 5), at5(1, 5), at5(2, 6)}).hangs.empty());
  // No pg_status: "scheduled" is no evidence either way, nothing is claimed.
  EXPECT_TRUE(
      AnalyzeFlightRecorder({at5(0, std::nullopt), at5(1, std::nullopt), at5(2, std::nullopt)})
          .hangs.empty());
  // Rank 1 completed only #4: the collective is reported, everyone arrived.
  const FlightRecorderReport r = AnalyzeFlightRecorder({at5(0, 5), at5(1, 4), at5(2, 5)});
  ASSERT_EQ(r.hangs.size(), 1U);
  EXPECT_EQ(r.hangs[0].seq, 5);
  EXPECT_EQ(r.hangs[0].arrived, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_TRUE(r.hangs[0].missing.empty());
  // A pg_status of another pg_id says nothing about this entry.
  model::FlightRecorderDump other = at5(1, std::nullopt);
  other.pg_status["4"].last_completed = 1;
  EXPECT_TRUE(AnalyzeFlightRecorder({at5(0, 5), other, at5(2, 5)}).hangs.empty());
}

}  // namespace
}  // namespace trainscope::analysis
