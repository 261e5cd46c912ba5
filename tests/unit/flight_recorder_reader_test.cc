// The flight-recorder reader (formats/log) on dumps that drift from the
// documented shape: keys missing or of another type must read as unknown,
// never throw (fuzzing found a simdjson_error thrown through the reader).
#include "formats/log/flight_recorder_reader.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>

#include "test_paths.h"

namespace trainscope::formats {
namespace {

using namespace std::string_view_literals;

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
  EXPECT_TRUE(dump->entries[0].profiling_name->empty());
  EXPECT_TRUE(dump->entries[1].state->empty());
  EXPECT_EQ(dump->entries[3].collective_seq_id, 41);
  EXPECT_FALSE(dump->entries[3].record_id.has_value());
  EXPECT_TRUE(dump->entries[3].profiling_name->empty());
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

// Writes a protocol 2 pickle the way torch's pickler does (BINUNICODE,
// LONG1 of 8 bytes, EMPTY_DICT/MARK/SETITEMS, EMPTY_LIST/MARK/APPENDS).
class FrPickleWriter {
 public:
  FrPickleWriter& Str(std::string_view s) {
    bytes_ += 'X';
    Le(s.size(), 4);
    bytes_ += s;
    return *this;
  }
  FrPickleWriter& Int(int64_t v) {
    bytes_ += "\x8a\x08";
    Le(static_cast<uint64_t>(v), 8);
    return *this;
  }
  FrPickleWriter& Bool(bool v) {
    bytes_ += v ? '\x88' : '\x89';
    return *this;
  }
  FrPickleWriter& None() {
    bytes_ += 'N';
    return *this;
  }
  FrPickleWriter& Float(double v) {
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof v);
    bytes_ += 'G';
    for (int i = 7; i >= 0; --i) bytes_.push_back(static_cast<char>(bits >> (8 * i)));
    return *this;
  }
  FrPickleWriter& Dict() {  // key, value, ... then End('u')
    bytes_ += "}(";
    return *this;
  }
  FrPickleWriter& List() {  // items then End('e')
    bytes_ += "](";
    return *this;
  }
  FrPickleWriter& Tuple() {  // items then End('t')
    bytes_ += '(';
    return *this;
  }
  FrPickleWriter& End(char op) {
    bytes_ += op;
    return *this;
  }
  std::string Done() const { return "\x80\x02" + bytes_ + "."; }

 private:
  void Le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) bytes_.push_back(static_cast<char>(v >> (8 * i)));
  }
  std::string bytes_;
};

// A two-entry dump: an all_to_all on pg 72 with timing, a send without.
std::string SmallPickledDump() {
  FrPickleWriter w;
  w.Dict().Str("version").Str("2.9");
  w.Str("pg_config").Dict();
  w.Str("72").Dict().Str("name").Str("72").Str("desc").Str("EXPERT_MODEL_PARALLEL_GROUP");
  w.Str("ranks").Str("[8, 9, 10, 11]").End('u');
  w.Str("0").Dict().Str("name").Str("0").Str("ranks").List().Int(0).Int(1).End('e').End('u');
  w.End('u');
  w.Str("pg_status").Dict().Str("11").Dict().Str("last_enqueued_collective").Int(44796);
  w.Str("last_started_collective").Int(-1).Str("last_completed_collective").Int(44790);
  w.End('u').End('u');
  w.Str("entries").List();
  w.Dict().Str("record_id").Int(5).Str("pg_id").Int(11);
  w.Str("process_group").Tuple().Str("72").Str("EXPERT_MODEL_PARALLEL_GROUP").End('t');
  w.Str("collective_seq_id").Int(44796).Str("p2p_seq_id").Int(0);
  w.Str("profiling_name").Str("nccl:all_to_all").Str("time_created_ns").Int(1758580156092493363);
  w.Str("input_sizes").List().List().Int(2048).Int(5120).End('e').End('e');
  w.Str("input_dtypes").List().Str("BFloat16").End('e');
  w.Str("output_sizes").List().List().Int(2048).Str("x").End('e').List().End('e').End('e');
  w.Str("output_dtypes").List().Str("BFloat16").None().End('e');
  w.Str("state").Str("completed").Str("timeout_ms").Int(180000).Str("duration_ms").Float(2.5);
  w.Str("is_p2p").Bool(false).End('u');
  w.Dict().Str("collective_seq_id").Str("41").Str("profiling_name").Str("nccl:send 9->1");
  w.Str("is_p2p").Bool(true).Str("state").Str("scheduled").Str("time_created_ns").None();
  w.End('u');
  w.End('e');
  w.End('u');
  return w.Done();
}

TEST(FlightRecorderReader, ReadsThePickledDump) {
  auto dump = ParseFlightRecorderPickle(SmallPickledDump(), "fr/_dump_9");
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  EXPECT_TRUE(dump->from_pickle);
  EXPECT_EQ(dump->rank, 9);
  EXPECT_EQ(dump->version, "2.9");
  EXPECT_EQ(dump->pg_descs.at("72"), "EXPERT_MODEL_PARALLEL_GROUP");
  EXPECT_EQ(dump->pg_descs.count("0"), 0U);  // no "desc"
  EXPECT_EQ(dump->pg_ranks.at("72"), (std::vector<int64_t>{8, 9, 10, 11}));
  EXPECT_EQ(dump->pg_ranks.at("0"), (std::vector<int64_t>{0, 1}));  // a list, not a string
  const model::FlightRecorderPgStatus& st = dump->pg_status.at("11");
  EXPECT_EQ(st.last_enqueued, 44796);
  EXPECT_FALSE(st.last_started.has_value());  // -1: never, unknown as in the JSON form
  EXPECT_EQ(st.last_completed, 44790);
  ASSERT_EQ(dump->entries.size(), 2U);
  const model::FlightRecorderEntry& a = dump->entries[0];
  EXPECT_EQ(a.pg_name, "72");
  EXPECT_EQ(a.pg_desc, "EXPERT_MODEL_PARALLEL_GROUP");
  EXPECT_EQ(a.record_id, 5);
  EXPECT_EQ(a.pg_id, 11);
  EXPECT_EQ(a.collective_seq_id, 44796);
  EXPECT_EQ(a.p2p_seq_id, 0);
  EXPECT_EQ(a.profiling_name, "nccl:all_to_all");
  EXPECT_EQ(a.time_created_ns, 1758580156092493363);
  ASSERT_EQ(a.input_sizes->size(), 1U);
  EXPECT_EQ((*a.input_sizes)[0], (std::vector<int64_t>{2048, 5120}));
  EXPECT_EQ(a.input_dtypes, (std::vector<std::string>{"BFloat16"}));
  // A shape with a dimension that is not an int is unknown (empty); [] stays [].
  ASSERT_EQ(a.output_sizes->size(), 2U);
  EXPECT_TRUE((*a.output_sizes)[0].empty());
  EXPECT_TRUE((*a.output_sizes)[1].empty());
  EXPECT_EQ(a.output_dtypes, (std::vector<std::string>{"BFloat16", ""}));
  EXPECT_EQ(a.state, "completed");
  EXPECT_EQ(a.timeout_ms, 180000);
  EXPECT_EQ(a.duration_ms, 2.5);
  EXPECT_FALSE(a.is_p2p);
  const model::FlightRecorderEntry& b = dump->entries[1];
  EXPECT_EQ(b.collective_seq_id, 41);  // a string of digits
  EXPECT_TRUE(b.is_p2p);
  EXPECT_FALSE(b.time_created_ns.has_value());  // None: unknown
  EXPECT_FALSE(b.duration_ms.has_value());
  EXPECT_FALSE(b.pg_id.has_value());
  EXPECT_TRUE(b.pg_name->empty());
}

// SmallPickledDump() as FlightRecorder::dump_json writes the same dict.
constexpr std::string_view kSmallDumpJson = R"({"version": "2.9",
  "pg_config": {"72": {"name": "72", "desc": "EXPERT_MODEL_PARALLEL_GROUP", "ranks": "[8, 9, 10, 11]"},
                "0": {"name": "0", "ranks": [0, 1]}},
  "pg_status": {"11": {"last_enqueued_collective": 44796, "last_started_collective": -1,
                       "last_completed_collective": 44790}},
  "entries": [{"record_id": 5, "pg_id": 11, "process_group": ["72", "EXPERT_MODEL_PARALLEL_GROUP"],
               "collective_seq_id": 44796, "p2p_seq_id": 0, "profiling_name": "nccl:all_to_all",
               "time_created_ns": 1758580156092493363, "input_sizes": [[2048, 5120]],
               "input_dtypes": ["BFloat16"], "output_sizes": [[2048, "x"], []],
               "output_dtypes": ["BFloat16", null], "state": "completed", "timeout_ms": 180000,
               "duration_ms": 2.5, "is_p2p": false},
              {"collective_seq_id": "41", "profiling_name": "nccl:send 9->1", "is_p2p": true,
               "state": "scheduled", "time_created_ns": null}]})";

// A dump's entries repeat a few names, states, shapes and dtype lists: each
// distinct one is kept once and shared by the entries naming it
// (model::SharedValue), and compares by value.
TEST(FlightRecorderReader, EntriesShareEachDistinctValue) {
  constexpr std::string_view kDump = R"({"version": "2.9", "pg_config": {"0": {"ranks": [0, 1]}},
    "entries": [
      {"collective_seq_id": 1, "profiling_name": "nccl:all_reduce", "state": "completed",
       "process_group": ["0", "default_pg"],
       "input_sizes": [[2048, 5120]], "input_dtypes": ["BFloat16"],
       "output_sizes": [[2048, 5120]], "output_dtypes": ["BFloat16"]},
      {"collective_seq_id": 2, "input_sizes": [[16]], "input_dtypes": ["Float"],
       "output_sizes": [], "output_dtypes": []},
      {"collective_seq_id": 3, "profiling_name": "nccl:all_reduce", "state": "scheduled",
       "process_group": ["0", "default_pg"],
       "input_sizes": [[2048, 5120]], "input_dtypes": ["BFloat16"]}]})";
  auto dump = ParseFlightRecorderJson(kDump, "fr/nccl_trace_rank_0.json");
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  ASSERT_EQ(dump->entries.size(), 3U);
  const model::FlightRecorderEntry& first = dump->entries[0];
  const model::FlightRecorderEntry& second = dump->entries[1];
  const model::FlightRecorderEntry& third = dump->entries[2];
  EXPECT_EQ(&*first.input_sizes, &*third.input_sizes);
  EXPECT_EQ(&*first.input_sizes, &*first.output_sizes);  // the same value, kept once
  EXPECT_EQ(&*first.input_dtypes, &*third.input_dtypes);
  EXPECT_EQ(&*first.profiling_name, &*third.profiling_name);
  EXPECT_EQ(&*first.pg_name, &*third.pg_name);
  EXPECT_EQ(&*first.pg_desc, &*third.pg_desc);
  EXPECT_EQ(first.profiling_name, "nccl:all_reduce");
  EXPECT_EQ(first.state, "completed");
  EXPECT_EQ(third.state, "scheduled");
  EXPECT_EQ(first.pg_desc, "default_pg");
  EXPECT_TRUE(second.profiling_name->empty());
  EXPECT_EQ(first.input_sizes, (model::TensorShapes{{2048, 5120}}));
  EXPECT_EQ(first.input_dtypes, (model::TensorDtypes{"BFloat16"}));
  EXPECT_EQ(second.input_sizes, (model::TensorShapes{{16}}));
  EXPECT_EQ(second.input_dtypes, (model::TensorDtypes{"Float"}));
  EXPECT_NE(&*first.input_sizes, &*second.input_sizes);
  EXPECT_TRUE(second.output_sizes->empty());  // [] and absent: no shapes
  EXPECT_TRUE(third.output_sizes->empty());
  EXPECT_TRUE(third.output_dtypes->empty());
  // Equal values of two dumps compare equal.
  auto again = ParseFlightRecorderJson(kDump, "fr/nccl_trace_rank_1.json");
  ASSERT_TRUE(again.ok());
  EXPECT_NE(&*again->entries[0].input_sizes, &*first.input_sizes);
  EXPECT_EQ(again->entries[0].input_sizes, first.input_sizes);
}

// An entry's keys are walked once: a repeated key is read at its first
// occurrence (as a lookup finds it), keys read by nobody (the stack frames)
// are passed over, a field of another type is unknown, and an entry that is
// no object is an entry of unknowns.
TEST(FlightRecorderReader, AnEntrysKeysAreReadAtTheirFirstOccurrence) {
  constexpr std::string_view kDump = R"({"version": "2.9", "pg_config": {"0": {"ranks": [0, 1]}},
    "entries": [
      {"frames": [{"name": "all_reduce", "line": 1}], "state": "completed", "state": "scheduled",
       "collective_seq_id": 3, "collective_seq_id": 4, "pg_id": "x", "timeout_ms": 600000,
       "process_group": ["0", "default_pg"], "is_p2p": true, "duration_ms": 1},
      5,
      {"collective_seq_id": 9}]})";
  auto dump = ParseFlightRecorderJson(kDump, "fr/nccl_trace_rank_0.json");
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  ASSERT_EQ(dump->entries.size(), 3U);
  const model::FlightRecorderEntry& first = dump->entries[0];
  EXPECT_EQ(first.state, "completed");
  EXPECT_EQ(first.collective_seq_id, 3);
  EXPECT_FALSE(first.pg_id.has_value());  // a string that is no number: unknown
  EXPECT_EQ(first.timeout_ms, 600000);
  EXPECT_EQ(first.pg_name, "0");
  EXPECT_EQ(first.pg_desc, "default_pg");
  EXPECT_TRUE(first.is_p2p);
  EXPECT_EQ(first.duration_ms, 1.0);  // an int where a double is written
  const model::FlightRecorderEntry& not_an_object = dump->entries[1];
  EXPECT_FALSE(not_an_object.collective_seq_id.has_value());
  EXPECT_TRUE(not_an_object.state->empty());
  EXPECT_EQ(dump->entries[2].collective_seq_id, 9);
}

TEST(FlightRecorderReader, OneDumpReadsTheSameFromItsJsonAndPickledForms) {
  auto pickled = ParseFlightRecorderPickle(SmallPickledDump(), "fr/_dump_9");
  auto json = ParseFlightRecorderJson(kSmallDumpJson, "fr/_dump_9");
  ASSERT_TRUE(pickled.ok()) << pickled.status().message();
  ASSERT_TRUE(json.ok()) << json.status().message();
  EXPECT_TRUE(pickled->from_pickle);
  EXPECT_FALSE(json->from_pickle);
  EXPECT_EQ(json->rank, pickled->rank);
  EXPECT_EQ(json->version, pickled->version);
  EXPECT_EQ(json->pg_ranks, pickled->pg_ranks);
  EXPECT_EQ(json->pg_descs, pickled->pg_descs);
  ASSERT_EQ(json->pg_status.size(), pickled->pg_status.size());
  for (const auto& [pg, st] : json->pg_status) {
    const model::FlightRecorderPgStatus& other = pickled->pg_status.at(pg);
    EXPECT_EQ(st.last_enqueued, other.last_enqueued) << pg;
    EXPECT_EQ(st.last_started, other.last_started) << pg;
    EXPECT_EQ(st.last_completed, other.last_completed) << pg;
  }
  // -1 (never started) is unknown in both.
  EXPECT_FALSE(json->pg_status.at("11").last_started.has_value());
  ASSERT_EQ(json->entries.size(), pickled->entries.size());
  for (size_t i = 0; i < json->entries.size(); ++i) {
    const model::FlightRecorderEntry& a = json->entries[i];
    const model::FlightRecorderEntry& b = pickled->entries[i];
    EXPECT_EQ(a.pg_name, b.pg_name) << i;
    EXPECT_EQ(a.pg_desc, b.pg_desc) << i;
    EXPECT_EQ(a.collective_seq_id, b.collective_seq_id) << i;
    EXPECT_EQ(a.record_id, b.record_id) << i;
    EXPECT_EQ(a.profiling_name, b.profiling_name) << i;
    EXPECT_EQ(a.state, b.state) << i;
    EXPECT_EQ(a.is_p2p, b.is_p2p) << i;
    EXPECT_EQ(a.pg_id, b.pg_id) << i;
    EXPECT_EQ(a.p2p_seq_id, b.p2p_seq_id) << i;
    EXPECT_EQ(a.input_sizes, b.input_sizes) << i;
    EXPECT_EQ(a.output_sizes, b.output_sizes) << i;
    EXPECT_EQ(a.input_dtypes, b.input_dtypes) << i;
    EXPECT_EQ(a.output_dtypes, b.output_dtypes) << i;
    EXPECT_EQ(a.time_created_ns, b.time_created_ns) << i;
    EXPECT_EQ(a.timeout_ms, b.timeout_ms) << i;
    EXPECT_EQ(a.duration_ms, b.duration_ms) << i;
  }
}

TEST(FlightRecorderReader, APickleThatIsNoDumpOrRunsCodeIsAnError) {
  auto empty = ParseFlightRecorderPickle("\x80\x02}q\x00."sv, "nccl_trace_rank_0");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("without \"version\" and \"entries\""), std::string::npos)
      << empty.status().message();
  auto code = ParseFlightRecorderPickle(
      "\x80\x02"
      "cos\nsystem\nX\x02\x00\x00\x00lsR."sv,
      "nccl_trace_rank_0");
  ASSERT_FALSE(code.ok());
  EXPECT_NE(code.status().message().find("GLOBAL (0x63) at byte 2"), std::string::npos)
      << code.status().message();
}

TEST(FlightRecorderReader, SharedValuesThatExpandTooMuchAreRefused) {
  // One entry dict whose input_sizes holds a 20000-int list, memoized and
  // referenced by 20000 entries: 400M copies from a ~200 KB pickle.
  std::string p(
      "\x80\x02}(X\x07\x00\x00\x00versionX\x01\x00\x00\x00"
      "1X\x07\x00\x00\x00"
      "entries](}(X\x0b\x00\x00\x00input_sizes](]("sv);
  for (int i = 0; i < 20000; ++i) p += "K\x01";
  p += "eeuq\x00"sv;
  for (int i = 0; i < 20000; ++i) p += "h\x00"sv;
  p += "eu.";
  auto dump = ParseFlightRecorderPickle(p, "_dump_0");
  ASSERT_FALSE(dump.ok());
  EXPECT_NE(dump.status().message().find("expand"), std::string::npos) << dump.status().message();
}

TEST(FlightRecorderReader, ScanFindsPickledDumpsByContentAndPassesOverOtherPickles) {
  const std::string dir = testing::MakeTempDir("fr_pickle_scan");
  testing::WriteFileBytes(std::filesystem::path(dir) / "_dump_3", SmallPickledDump());
  testing::WriteFileBytes(std::filesystem::path(dir) / "_dump_1", SmallPickledDump());
  // Not named like a dump: a pickled dict that is no dump, one that runs code, a log.
  testing::WriteFileBytes(std::filesystem::path(dir) / "state.pkl", "\x80\x02}q\x00."sv);
  testing::WriteFileBytes(std::filesystem::path(dir) / "evil.pkl", "\x80\x02}(cos\nsystem\nu."sv);
  testing::WriteFileBytes(std::filesystem::path(dir) / "rank0.log", "step 1 loss 2.0\n");
  // Named like a dump: a pickle that is no dump is an error.
  testing::WriteFileBytes(std::filesystem::path(dir) / "nccl_trace_rank_5", "\x80\x02}q\x00."sv);
  const FlightRecorderScan scan = ScanFlightRecorderDumps({dir});
  ASSERT_EQ(scan.dumps.size(), 2U);
  EXPECT_EQ(scan.dumps[0].rank, 1);
  EXPECT_EQ(scan.dumps[1].rank, 3);
  EXPECT_TRUE(scan.dumps[1].from_pickle);
  ASSERT_EQ(scan.pickles.size(), 2U);
  ASSERT_EQ(scan.errors.size(), 1U);
  EXPECT_NE(scan.errors[0].find("nccl_trace_rank_5"), std::string::npos) << scan.errors[0];
}

}  // namespace
}  // namespace trainscope::formats
