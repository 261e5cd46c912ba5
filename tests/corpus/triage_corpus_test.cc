// `trainscope triage` on the failed jobs of the shared corpus (failures/,
// each with its SOURCE.txt giving the upstream tool's answer): the verdict
// must name the same ranks or devices and the same collective or link.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/triage/triage.h"
#include "formats/triage/failure_log_reader.h"
#include "golden/cli_test_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

analysis::TriageReport TriageCorpusCase(const std::string& path) {
  return analysis::Triage(formats::LoadTriageInputs({path}, 2));
}

std::vector<std::string> TriageSorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// mind-cluster st_event_timeout_testcase: LINK_ERROR_INFO rows on both workers.
TEST(TriageCorpus, HcclSocketCycleNamesBothDevicesAndTheCycle) {
  TS_REQUIRE_CORPUS("failures/l_mindcluster_hccl_socket_cycle_2worker");
  const analysis::TriageReport r =
      TriageCorpusCase(corpus_path + "/failures/l_mindcluster_hccl_socket_cycle_2worker");
  ASSERT_TRUE(r.links.has_value());
  EXPECT_TRUE(r.links->cycle);
  EXPECT_EQ(r.links->chain, "worker-1 device-0 -> worker-0 device-0 -> worker-1 device-0");
  EXPECT_EQ(TriageSorted(r.links->root_causes),
            (std::vector<std::string>{"worker-0 device-0", "worker-1 device-0"}));
  EXPECT_EQ(r.verdict_kind, "link-failure");
  ASSERT_TRUE(r.first_error.has_value());
  EXPECT_EQ(r.first_error->node, "worker-1 device-0");
  EXPECT_EQ(r.first_error->clock, "2025-01-24-11:24:07.476.916");
  // rank 2 (worker-1 device-1) waits for rank 3 of a 3-rank group: no peer, no edge.
  for (const analysis::LinkEdge& e : r.links->edges) EXPECT_NE(e.from, "worker-1 device-1");
}

TEST(TriageCorpus, HcclSocketWorkerOneAloneNamesItsDevice) {
  TS_REQUIRE_CORPUS("failures/l_mindcluster_hccl_socket_cycle_2worker");
  const analysis::TriageReport r =
      TriageCorpusCase(corpus_path + "/failures/l_mindcluster_hccl_socket_cycle_2worker/worker-1");
  ASSERT_TRUE(r.links.has_value());
  EXPECT_FALSE(r.links->cycle);
  EXPECT_EQ(r.links->root_causes, std::vector<std::string>{"worker-1 device-0"});
  EXPECT_EQ(r.links->chain, "worker-1 device-0 -> rank 0 (no logs)");
}

// mind-cluster st_aicpu_notify_testcase: worker-1 device-3 waits on a notify
// from rank 0 (worker-0 device-11), whose SDMA task failed first.
TEST(TriageCorpus, AicpuNotifyTimeoutRootsAtWorker0Device11) {
  TS_REQUIRE_CORPUS("failures/l_mindcluster_aicpu_notify_timeout_2worker");
  const analysis::TriageReport r =
      TriageCorpusCase(corpus_path + "/failures/l_mindcluster_aicpu_notify_timeout_2worker");
  ASSERT_TRUE(r.links.has_value());
  EXPECT_EQ(r.links->root_causes, std::vector<std::string>{"worker-0 device-11"});
  EXPECT_EQ(r.links->chain, "worker-1 device-3 -> worker-0 device-11");
  EXPECT_EQ(r.links->fault, "notify-timeout");
  EXPECT_EQ(r.verdict_kind, "device-error");
  EXPECT_EQ(r.culprits, std::vector<std::string>{"worker-0 device-11"});
  ASSERT_TRUE(r.first_error.has_value());
  EXPECT_EQ(r.first_error->node, "worker-0 device-11");
  EXPECT_EQ(r.first_error->clock, "2025-08-06-22:39:11.763.467");
  bool sdma = false;
  for (const analysis::RankEnding& e : r.endings) {
    sdma = sdma || (e.node == "worker-0 device-11" && e.how == "sdma-error");
  }
  EXPECT_TRUE(sdma);
}

// ALCF Polaris: every rank's watchdog times out in BROADCAST SeqNum 5.
TEST(TriageCorpus, NcclWatchdogHangAcrossTwoNodes) {
  TS_REQUIRE_CORPUS("failures/l_alcf_polaris_nccl_watchdog_vae_2024_11");
  const analysis::TriageReport r = TriageCorpusCase(
      corpus_path + "/failures/l_alcf_polaris_nccl_watchdog_vae_2024_11/with_aws.log");
  EXPECT_EQ(r.verdict_kind, "hang");
  ASSERT_EQ(r.stuck.size(), 1U);
  const analysis::StuckCollective& s = r.stuck[0];
  EXPECT_EQ(s.source, "watchdog");
  EXPECT_EQ(s.op, "BROADCAST");
  EXPECT_EQ(s.seq, 5);
  EXPECT_EQ(s.pg_name, "0");
  EXPECT_EQ(s.numel_in, 800);
  EXPECT_EQ(s.timeout_ms, 300000);
  EXPECT_EQ(s.inside, (std::vector<int64_t>{1, 4, 5, 6, 7}));
  EXPECT_EQ(s.unknown, (std::vector<int64_t>{0, 2, 3}));
  EXPECT_EQ(s.members.size(), 8U);  // nRanks 8 across nNodes 2
  for (const analysis::TriageRankEvidence& e : r.ranks) {
    if (e.state == "timed-out") {
      EXPECT_EQ(e.last_completed, 4) << e.node;
      EXPECT_EQ(e.last_enqueued, 6) << e.node;
    }
  }
  ASSERT_TRUE(r.first_error.has_value());
  EXPECT_EQ(r.first_error->node, "rank 6");
  EXPECT_EQ(r.first_error->line, 314);
  EXPECT_EQ(r.first_error_clock, "file order (no clock)");
  bool rank1_abort = false;
  for (const analysis::RankEnding& e : r.endings) {
    rank1_abort = rank1_abort || (e.rank == 1 && e.how == "signal" && e.detail == "SIGABRT");
  }
  EXPECT_TRUE(rank1_abort);
}

TEST(TriageCorpus, NcclRunWithoutThePluginHasNoFailure) {
  TS_REQUIRE_CORPUS("failures/l_alcf_polaris_nccl_watchdog_vae_2024_11");
  const analysis::TriageReport r = TriageCorpusCase(
      corpus_path + "/failures/l_alcf_polaris_nccl_watchdog_vae_2024_11/without_aws.log");
  EXPECT_EQ(r.verdict_kind, "no-failure");
  EXPECT_TRUE(r.stuck.empty());
  EXPECT_FALSE(r.first_error.has_value());
}

// nvidia-resiliency-ext attribution reference: PG 72 EXPERT_MODEL_PARALLEL_GROUP
// nccl:all_to_all 2048x5120 BFloat16, missing ranks 9,14 (both fault cases).
void ExpectExpertAllToAllHang(const std::string& dir) {
  const model::TriageInputs in = formats::LoadTriageInputs({dir}, 2);
  ASSERT_EQ(in.dumps.size(), 16u) << dir;
  const analysis::TriageReport r = analysis::Triage(in);
  EXPECT_EQ(r.verdict_kind, "hang");
  ASSERT_FALSE(r.stuck.empty());
  const analysis::StuckCollective& s = r.stuck.front();
  EXPECT_EQ(s.pg_name, "72");
  EXPECT_EQ(s.pg_desc, "EXPERT_MODEL_PARALLEL_GROUP");
  EXPECT_EQ(s.op, "nccl:all_to_all");
  ASSERT_FALSE(s.sizes.empty());
  EXPECT_EQ(s.sizes.front(), (std::vector<int64_t>{2048, 5120}));
  EXPECT_EQ(s.dtypes, std::vector<std::string>{"BFloat16"});
  EXPECT_EQ(s.missing, (std::vector<int64_t>{9, 14}));
  EXPECT_EQ(TriageSorted(r.culprits), (std::vector<std::string>{"rank 14", "rank 9"}));
}

TEST(TriageCorpus, FlightRecorderGpuErrorNamesRanks9And14) {
  TS_REQUIRE_CORPUS("failures/f_nvrx_flightrecorder_16rank_gpu_error_2nd");
  ExpectExpertAllToAllHang(corpus_path + "/failures/f_nvrx_flightrecorder_16rank_gpu_error_2nd");
}

TEST(TriageCorpus, FlightRecorderLockGilNamesRanks9And14) {
  TS_REQUIRE_CORPUS("failures/f_nvrx_flightrecorder_16rank_lock_gil_1st");
  ExpectExpertAllToAllHang(corpus_path + "/failures/f_nvrx_flightrecorder_16rank_lock_gil_1st");
}

TEST(TriageCorpus, CliJsonOnTheSocketCycle) {
  TS_REQUIRE_CORPUS("failures/l_mindcluster_hccl_socket_cycle_2worker");
  const CommandResult r = RunTrainscope(
      {"triage", corpus_path + "/failures/l_mindcluster_hccl_socket_cycle_2worker", "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  EXPECT_EQ(std::string_view(doc["schema"]), "trainscope.triage/1");
  EXPECT_EQ(std::string_view(doc["links"]["chain"]),
            "worker-1 device-0 -> worker-0 device-0 -> worker-1 device-0");
  EXPECT_EQ(std::string_view(doc["verdict_kind"]), "link-failure");
}

}  // namespace
}  // namespace trainscope::testing
