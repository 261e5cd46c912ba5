// The flight-recorder reader (formats/log) on dumps that drift from the
// documented shape: keys missing or of another type must read as unknown,
// never throw (fuzzing found a simdjson_error thrown through the reader).
#include "formats/log/flight_recorder_reader.h"

#include <gtest/gtest.h>

#include <string>

namespace trainscope::formats {
namespace {

TEST(FlightRecorderReader, ReadsTheDocumentedEntry) {
  const std::string json = R"({"version": "2.4",
    "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": "[0, 1, 2, 3]"}},
    "entries": [{"process_group": ["0", "default_pg"], "collective_seq_id": 7,
                 "record_id": 12, "profiling_name": "nccl:all_reduce",
                 "state": "scheduled", "is_p2p": false}]})";
  auto dump = ParseFlightRecorderJson(json, "nccl_trace_rank_3.json");
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  EXPECT_EQ(dump->rank, 3);
  ASSERT_EQ(dump->pg_ranks.at("0").size(), 4U);
  EXPECT_EQ(dump->pg_ranks.at("0")[3], 3);
  ASSERT_EQ(dump->entries.size(), 1U);
  EXPECT_EQ(dump->entries[0].collective_seq_id, 7);
  EXPECT_EQ(dump->entries[0].record_id, 12);
  EXPECT_EQ(dump->entries[0].pg_desc, "default_pg");
  EXPECT_EQ(dump->entries[0].profiling_name, "nccl:all_reduce");
  EXPECT_EQ(dump->entries[0].state, "scheduled");
}

TEST(FlightRecorderReader, MissingOrMistypedKeysReadAsEmptyInsteadOfThrowing) {
  // An entry without any key, an entry that is not an object, a pg_config
  // value that is a number, string seq ids (the pickle era) and a bad one.
  const std::string json = R"({"pg_config": {"0": 5, "1": {"ranks": 3}},
    "entries": [{}, 17, "x", {"collective_seq_id": "41", "record_id": "4x",
                 "profiling_name": 3, "state": null}]})";
  auto dump = ParseFlightRecorderJson(json, "nccl_trace_rank_0.json");
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  EXPECT_TRUE(dump->pg_ranks.at("0").empty());
  EXPECT_TRUE(dump->pg_ranks.at("1").empty());
  ASSERT_EQ(dump->entries.size(), 4U);
  EXPECT_FALSE(dump->entries[0].collective_seq_id.has_value());  // unknown, not 0
  EXPECT_TRUE(dump->entries[0].profiling_name.empty());
  EXPECT_TRUE(dump->entries[1].state.empty());
  EXPECT_EQ(dump->entries[3].collective_seq_id, 41);
  EXPECT_FALSE(dump->entries[3].record_id.has_value());
  EXPECT_TRUE(dump->entries[3].profiling_name.empty());
}

TEST(FlightRecorderReader, SeqIdsTooLongForInt64AreUnknown) {
  const std::string json = R"({"pg_config": {},
    "entries": [{"collective_seq_id": "99999999999999999999"},
                {"collective_seq_id": "123456789012345678"}]})";
  auto dump = ParseFlightRecorderJson(json, "nccl_trace_rank_0.json");
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  ASSERT_EQ(dump->entries.size(), 2U);
  EXPECT_FALSE(dump->entries[0].collective_seq_id.has_value());
  EXPECT_EQ(dump->entries[1].collective_seq_id, 123456789012345678);
}

TEST(FlightRecorderReader, ADocumentWithoutPgConfigIsRejectedWithAHint) {
  auto dump = ParseFlightRecorderJson(R"({"entries": []})", "x.json");
  ASSERT_FALSE(dump.ok());
  EXPECT_NE(dump.status().message().find("x.json"), std::string::npos);
  EXPECT_NE(dump.status().message().find("pg_config"), std::string::npos);
}

}  // namespace
}  // namespace trainscope::formats
