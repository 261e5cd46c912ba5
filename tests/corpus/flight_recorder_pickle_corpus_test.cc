// The pickled NCCL flight-recorder dumps of the shared corpus
// (failures/f_nvrx_flightrecorder_16rank_*, each with its SOURCE.txt and
// reference/): two 16-rank Megatron MoE jobs of nvidia-resiliency-ext,
// faults injected on ranks 9 and 14. The expected values were checked by
// hand against the dumps (read with Python's unpickler restricted to data)
// and against reference/ (PG 72 EXPERT_MODEL_PARALLEL_GROUP, nccl:all_to_all
// 2048x5120 BFloat16, missing ranks 9,14).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "formats/log/flight_recorder_reader.h"
#include "golden/cli_test_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

constexpr const char* kFrGpuError = "failures/f_nvrx_flightrecorder_16rank_gpu_error_2nd";
constexpr const char* kFrLockGil = "failures/f_nvrx_flightrecorder_16rank_lock_gil_1st";

std::vector<model::FlightRecorderDump> ReadFrCorpusDumps(const std::string& dir) {
  std::vector<model::FlightRecorderDump> dumps;
  for (int rank = 0; rank < 16; ++rank) {
    const std::string path = dir + "/_dump_" + std::to_string(rank);
    const std::string bytes = ReadFileBytes(path);
    EXPECT_FALSE(bytes.empty()) << path;
    auto dump = formats::ParseFlightRecorderPickle(bytes, path);
    EXPECT_TRUE(dump.ok()) << dump.status().message();
    if (!dump.ok()) continue;
    EXPECT_EQ(dump->rank, rank);
    EXPECT_EQ(dump->version, "2.9");
    EXPECT_TRUE(dump->from_pickle);
    EXPECT_EQ(dump->pg_descs.size(), 13U) << path;  // 13 process groups
    dumps.push_back(std::move(*dump));
  }
  return dumps;
}

size_t FrEntryCount(const std::vector<model::FlightRecorderDump>& dumps) {
  size_t n = 0;
  for (const auto& d : dumps) n += d.entries.size();
  return n;
}

TEST(FlightRecorderPickleCorpus, GpuErrorDumpsReadWithTheStuckAllToAll) {
  TS_REQUIRE_CORPUS(kFrGpuError);
  const auto dumps = ReadFrCorpusDumps(corpus_path + "/" + kFrGpuError);
  ASSERT_EQ(dumps.size(), 16U);
  EXPECT_EQ(FrEntryCount(dumps), 278U);
  const model::FlightRecorderDump& r8 = dumps[8];
  EXPECT_EQ(r8.pg_descs.at("72"), "EXPERT_MODEL_PARALLEL_GROUP");
  EXPECT_EQ(r8.pg_ranks.at("72"), (std::vector<int64_t>{8, 9, 10, 11, 12, 13, 14, 15}));
  // pg_status is keyed by pg_id: group "72" is pg_id 11.
  const model::FlightRecorderPgStatus& st = r8.pg_status.at("11");
  EXPECT_EQ(st.last_enqueued, 44796);
  // Timing not enabled: torch writes its initial value -1, read as unknown (as in the JSON form).
  EXPECT_FALSE(st.last_started.has_value());
  EXPECT_EQ(st.last_completed, 44790);
  // The collective ranks 9 and 14 never reached: #44791 after their last #44790.
  const model::FlightRecorderEntry* stuck = nullptr;
  for (const auto& e : r8.entries) {
    if (e.pg_name == "72" && e.collective_seq_id == 44791) stuck = &e;
  }
  ASSERT_NE(stuck, nullptr);
  EXPECT_EQ(stuck->pg_desc, "EXPERT_MODEL_PARALLEL_GROUP");
  EXPECT_EQ(stuck->profiling_name, "nccl:all_to_all");
  EXPECT_EQ(stuck->pg_id, 11);
  ASSERT_EQ(stuck->input_sizes->size(), 1U);
  EXPECT_EQ((*stuck->input_sizes)[0], (std::vector<int64_t>{2048, 5120}));
  EXPECT_EQ(stuck->input_dtypes, (std::vector<std::string>{"BFloat16"}));
  EXPECT_EQ(stuck->state, "scheduled");
  EXPECT_EQ(stuck->timeout_ms, 600000);
  EXPECT_FALSE(stuck->duration_ms.has_value());  // timing not enabled
  EXPECT_TRUE(stuck->time_created_ns.has_value());
  for (int rank : {9, 14}) {
    int64_t last = -1;
    for (const auto& e : dumps[static_cast<size_t>(rank)].entries) {
      if (e.pg_name == "72" && e.collective_seq_id) last = std::max(last, *e.collective_seq_id);
    }
    EXPECT_EQ(last, 44790) << rank;
  }
}

TEST(FlightRecorderPickleCorpus, LockGilDumpsOfRanks9And14HoldNoEntries) {
  TS_REQUIRE_CORPUS(kFrLockGil);
  const auto dumps = ReadFrCorpusDumps(corpus_path + "/" + kFrLockGil);
  ASSERT_EQ(dumps.size(), 16U);
  EXPECT_EQ(FrEntryCount(dumps), 142U);
  for (const auto& d : dumps) {
    if (d.rank == 9 || d.rank == 14) {
      EXPECT_TRUE(d.entries.empty()) << d.rank;
      EXPECT_FALSE(d.pg_status.empty()) << d.rank;  // the status is there all the same
    } else {
      EXPECT_FALSE(d.entries.empty()) << d.rank;
    }
  }
}

TEST(FlightRecorderPickleCorpus, ScanFindsTheUnnamedDumpsByContent) {
  TS_REQUIRE_CORPUS(kFrGpuError);
  for (const char* job : {kFrGpuError, kFrLockGil}) {
    const formats::FlightRecorderScan scan =
        formats::ScanFlightRecorderDumps({corpus_path + "/" + job});
    ASSERT_EQ(scan.dumps.size(), 16U) << job;
    for (size_t i = 0; i < scan.dumps.size(); ++i) {
      EXPECT_EQ(scan.dumps[i].rank, static_cast<int64_t>(i));
    }
    EXPECT_EQ(scan.pickles.size(), 16U);
    EXPECT_TRUE(scan.errors.empty()) << scan.errors.front();
  }
}

// `trainscope health` beside the dumps (the folder's only log, the fault
// injection record, holds no training line: exit 2, the dumps still read).
TEST(FlightRecorderPickleCorpus, HealthNamesTheAllToAllRanks9And14NeverReached) {
  TS_REQUIRE_CORPUS(kFrGpuError);
  for (const char* job : {kFrGpuError, kFrLockGil}) {
    const CommandResult r =
        RunTrainscope({"health", corpus_path + "/" + job + "/fault_injection.log", "--json", "-"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out.substr(0, 200);
    int64_t dumps = 0;
    ASSERT_EQ(doc["flight_recorder"]["dumps"].get(dumps), simdjson::SUCCESS);
    EXPECT_EQ(dumps, 16);
    EXPECT_EQ(doc["flight_recorder"]["pickles"].get_array().size(), 16U);
    bool found = false;
    for (simdjson::dom::element h : doc["flight_recorder"]["hangs"].get_array()) {
      std::string_view pg;
      ASSERT_EQ(h["process_group"].get(pg), simdjson::SUCCESS);
      if (pg != "72") continue;
      found = true;
      std::string_view desc, op;
      ASSERT_EQ(h["pg_desc"].get(desc), simdjson::SUCCESS);
      ASSERT_EQ(h["op"].get(op), simdjson::SUCCESS);
      EXPECT_EQ(desc, "EXPERT_MODEL_PARALLEL_GROUP");
      EXPECT_EQ(op, "nccl:all_to_all");
      std::vector<int64_t> missing;
      for (simdjson::dom::element m : h["missing"].get_array()) {
        missing.push_back(m["rank"].get_int64().value());
      }
      EXPECT_EQ(missing, (std::vector<int64_t>{9, 14})) << job;
      EXPECT_EQ(h["arrived"].get_array().size(), 6U);  // 8, 10, 11, 12, 13, 15
    }
    EXPECT_TRUE(found) << job;
  }
}

}  // namespace
}  // namespace trainscope::testing
