// Class 4: inf/nan/negative/absurd bandwidths, sizes and times in
// communication(_matrix).json are unknown: NaN in the model, null in JSON,
// a warning naming the file, and never evidence for a slow-link finding.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <regex>
#include <string>

#include "formats/ascend/communication_reader.h"
#include "hostile/hostile_util.h"
#include "synth/synth.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

TEST(HostileCommValues, NonFiniteNegativeAndAbsurdValuesAreUnknown) {
  model::CommunicationData data;
  const Status status = formats::ParseCommunicationMatrix(
      R"js({"step1": {"p2p": {}, "collective": {"allreduce-total@9": {
      "0-1": {"Transport Type": "HCCS", "Transit Size(MB)": 50, "Transit Time(ms)": 1, "Bandwidth(GB/s)": 1e400},
      "0-2": {"Transport Type": "HCCS", "Transit Size(MB)": 50, "Transit Time(ms)": 1, "Bandwidth(GB/s)": "nan"},
      "0-3": {"Transport Type": "HCCS", "Transit Size(MB)": 50, "Transit Time(ms)": 1, "Bandwidth(GB/s)": -5},
      "0-4": {"Transport Type": "HCCS", "Transit Size(MB)": 50, "Transit Time(ms)": 1, "Bandwidth(GB/s)": 2e9},
      "0-5": {"Transport Type": "HCCS", "Transit Size(MB)": 50, "Transit Time(ms)": 0, "Bandwidth(GB/s)": 0.001},
      "0-6": {"Transport Type": "HCCS", "Transit Size(MB)": -1e400, "Transit Time(ms)": 1, "Bandwidth(GB/s)": 20},
      "0-7": {"Transport Type": "HCCS", "Transit Size(MB)": 50, "Transit Time(ms)": 2.5, "Bandwidth(GB/s)": 20}
      }}}})js",
      "matrix.json", &data);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(data.links.size(), 7u);
  for (size_t i = 0; i < 5; ++i) EXPECT_TRUE(std::isnan(data.links[i].bandwidth_gbps)) << i;
  EXPECT_TRUE(std::isnan(data.links[5].size_mb));
  EXPECT_DOUBLE_EQ(data.links[5].bandwidth_gbps, 20);
  EXPECT_DOUBLE_EQ(data.links[6].bandwidth_gbps, 20);  // the good link is kept as written
  EXPECT_DOUBLE_EQ(data.links[6].time_ms, 2.5);
  ASSERT_EQ(data.notes.size(), 1u);
  EXPECT_NE(data.notes[0].find("matrix.json: 6 values not finite, negative or out of range "
                               "(first: Bandwidth(GB/s) = 1e400); treated as unknown"),
            std::string::npos)
      << data.notes[0];
}

TEST(HostileCommValues, InfiniteTimesInCommunicationJsonAreUnknown) {
  model::CommunicationData data;
  const Status status = formats::ParseCommunication(
      R"js({"step1": {"p2p": {}, "collective": {"hcom_allReduce__1_1_1@9": {
      "Communication Time Info": {"Start Timestamp(us)": -3, "Elapse Time(ms)": 1e400,
        "Transit Time(ms)": 1.5, "Wait Time(ms)": 1e400, "Synchronization Time(ms)": 0.5,
        "Wait Time Ratio": 7, "Synchronization Time Ratio": 0.2},
      "Communication Bandwidth Info": {"HCCS": {"Transit Size(MB)": 1e308, "Transit Time(ms)": 1.5,
        "Bandwidth(GB/s)": 18.0, "Large Packet Ratio": 0}}}}}})js",
      "comm.json", &data);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(data.ops.size(), 1u);
  const model::CommOpRecord& op = data.ops[0];
  EXPECT_TRUE(std::isnan(op.start_us));
  EXPECT_TRUE(std::isnan(op.elapse_ms));
  EXPECT_TRUE(std::isnan(op.wait_ms));
  EXPECT_TRUE(std::isnan(op.wait_ratio));
  EXPECT_DOUBLE_EQ(op.transit_ms, 1.5);
  EXPECT_DOUBLE_EQ(op.sync_ratio, 0.2);
  EXPECT_EQ(op.TransitSizeMb(), 0);  // 1e308 MB is no size: unknown, not the largest
  ASSERT_EQ(data.notes.size(), 1u);
  EXPECT_NE(data.notes[0].find("5 values"), std::string::npos) << data.notes[0];
}

// Replaces the bandwidth (and optionally the time) of link |key| of every
// step in |json|.
std::string Plant(const std::string& json, const std::string& key, const std::string& time,
                  const std::string& bandwidth) {
  const std::regex link("(\"" + key +
                        "\": \\{\"Transport Type\": \"HCCS\", \"Transit Size\\(MB\\)\": [0-9.]+, "
                        "\"Transit Time\\(ms\\)\": )([0-9.]+)(, \"Bandwidth\\(GB/s\\)\": )[0-9.]+");
  // Two-digit group numbers: "$1" followed by a digit would read as $10.
  return std::regex_replace(json, link,
                            "$01" + (time.empty() ? std::string("$02") : time) + "$03" + bandwidth);
}

TEST(HostileCommValues, PlantedInfiniteAndZeroTimeLinksNeverMakeASlowLinkFinding) {
  synth::SynthOptions options;
  options.ranks = 4;
  options.layers = 4;
  options.steps = 2;
  options = synth::AllFused(options);
  const std::string job = MakeTempDir("comm_values");
  ASSERT_TRUE(synth::WriteSynthJob(options, job).ok());
  const std::string matrix_path = SynthOutputFile(job, 0, "communication_matrix.json");
  const std::string matrix = ReadFileBytes(matrix_path);
  // 0->1: bandwidth 1e400 (parses to inf: the transport mean would be inf
  // and every other link "slow"); 0->2: a transit time of 0 under a tiny
  // bandwidth (size/0: no measurement, would be the slowest link).
  const std::string planted = Plant(Plant(matrix, "0-1", "", "1e400"), "0-2", "0", "0.001");
  ASSERT_NE(planted, matrix);
  ASSERT_NE(planted.find("1e400"), std::string::npos);
  ASSERT_TRUE(WriteBytes(matrix_path, planted));

  const TreeSnapshot before = SnapshotTree(job);
  const CommandResult r = RunTrainscopeIn(job, {"analyze", "--json", "-", job});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS);
  for (simdjson::dom::element finding : doc["findings"].get_array()) {
    EXPECT_NE(std::string_view(finding["id"].get_string()), "slow-link")
        << std::string_view(finding["evidence"].get_string());
  }
  EXPECT_EQ(doc["cluster"]["slow_links"].get_array().size(), 0u);
  EXPECT_GT(int64_t(doc["cluster"]["links_checked"].get_int64()), 0);

  const CommandResult text = RunTrainscopeIn(job, {"analyze", job});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("communication_matrix.json: "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("values not finite, negative or out of range (first: "
                          "Bandwidth(GB/s) = 1e400); treated as unknown"),
            std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("slow (< 20% of transport average): 1"), std::string::npos);
  EXPECT_EQ(DiffTrees(before, SnapshotTree(job)), "");
}

}  // namespace
}  // namespace trainscope::testing
