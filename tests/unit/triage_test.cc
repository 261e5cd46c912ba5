// `trainscope triage` on synthetic inputs written here: flight-recorder
// dumps in their JSON form (FlightRecorder::dump_json's keys), c10d and
// scheduler log lines, plog lines. Each test states the failure it builds
// and asserts what the triage computes from the files it reads back.
#include "analysis/triage/triage.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "formats/log/flight_recorder_reader.h"
#include "formats/triage/failure_log_reader.h"
#include "golden/cli_test_util.h"
#include "report/triage_report.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

// One entry of a synthetic dump.
struct TriageFixtureEntry {
  std::string pg;  // process group name
  std::string desc;
  int64_t seq = 0;  // collective_seq_id (or p2p_seq_id when p2p)
  std::string op = "nccl:all_reduce";
  std::string state = "completed";
  bool p2p = false;
  int64_t created_ns = 0;
};

struct TriageFixtureGroup {
  std::string name, desc;
  std::vector<int64_t> ranks;
};

std::string TriageFixtureDump(const std::vector<TriageFixtureGroup>& groups,
                              const std::vector<TriageFixtureEntry>& entries) {
  std::string out = R"({"version": "2.9", "pg_config": {)";
  for (size_t i = 0; i < groups.size(); ++i) {
    std::vector<std::string> ranks;
    for (int64_t r : groups[i].ranks) ranks.push_back(std::to_string(r));
    out += fmt::format(R"({}"{}": {{"name": "{}", "desc": "{}", "ranks": "[{}]"}})", i ? ", " : "",
                       groups[i].name, groups[i].name, groups[i].desc, fmt::join(ranks, ", "));
  }
  out += R"(}, "pg_status": {}, "entries": [)";
  for (size_t i = 0; i < entries.size(); ++i) {
    const TriageFixtureEntry& e = entries[i];
    out += fmt::format(
        R"({}{{"record_id": {}, "pg_id": 0, "process_group": ["{}", "{}"], "collective_seq_id": {},)"
        R"( "p2p_seq_id": {}, "profiling_name": "{}", "time_created_ns": {}, "input_sizes": [[1024, 16]],)"
        R"( "input_dtypes": ["Float"], "output_sizes": [[1024, 16]], "output_dtypes": ["Float"],)"
        R"( "state": "{}", "timeout_ms": 600000, "is_p2p": {}}})",
        i ? ", " : "", i, e.pg, e.desc, e.p2p ? 0 : e.seq, e.p2p ? e.seq : 0, e.op,
        e.created_ns ? e.created_ns : 1'700'000'000'000'000'000 + e.seq * 1000, e.state,
        e.p2p ? "true" : "false");
  }
  out += "]}";
  return out;
}

// Collectives 1..last on |pg|: completed up to |completed|, the rest scheduled.
std::vector<TriageFixtureEntry> TriageFixtureRun(const std::string& pg, const std::string& desc,
                                                 int64_t completed, int64_t last,
                                                 int64_t created_base = 0) {
  std::vector<TriageFixtureEntry> out;
  for (int64_t s = 1; s <= last; ++s) {
    TriageFixtureEntry e;
    e.pg = pg;
    e.desc = desc;
    e.seq = s;
    e.state = s <= completed ? "completed" : "scheduled";
    if (created_base) e.created_ns = created_base + s * 1000;
    out.push_back(e);
  }
  return out;
}

std::vector<int64_t> TriageFixtureRange(int64_t from, int64_t to) {
  std::vector<int64_t> out;
  for (int64_t r = from; r <= to; ++r) out.push_back(r);
  return out;
}

analysis::TriageReport TriageFixtureRun(const std::string& dir) {
  return analysis::Triage(formats::LoadTriageInputs({dir}, 2));
}

const analysis::StuckCollective* TriageFixtureFind(const analysis::TriageReport& r,
                                                   const std::string& pg, size_t job = 0) {
  for (const analysis::StuckCollective& s : r.stuck) {
    if (s.pg_name == pg && s.job == job) return &s;
  }
  return nullptr;
}

TEST(TriageSynthetic, RankMissingFromAnAllReduceAmong64) {
  const std::string dir = MakeTempDir("triage-64");
  const std::vector<TriageFixtureGroup> groups = {{"0", "default_pg", TriageFixtureRange(0, 63)}};
  for (int64_t r = 0; r < 64; ++r) {
    // Rank 37 completed collective 10 and never enqueued 11; the others sit in 11.
    const int64_t last = r == 37 ? 10 : 11;
    WriteFileBytes(fmt::format("{}/nccl_trace_rank_{}.json", dir, r),
                   TriageFixtureDump(groups, TriageFixtureRun("0", "default_pg", 10, last)));
  }
  const analysis::TriageReport r = TriageFixtureRun(dir);
  EXPECT_EQ(r.verdict_kind, "hang");
  ASSERT_FALSE(r.stuck.empty());
  const analysis::StuckCollective& s = r.stuck.front();
  EXPECT_EQ(s.pg_name, "0");
  EXPECT_EQ(s.pg_desc, "default_pg");
  EXPECT_EQ(s.op, "nccl:all_reduce");
  EXPECT_EQ(s.seq, 11);
  EXPECT_EQ(s.missing, std::vector<int64_t>{37});
  EXPECT_EQ(s.inside.size(), 63U);
  ASSERT_EQ(s.sizes.size(), 1U);
  EXPECT_EQ(s.sizes[0], (std::vector<int64_t>{1024, 16}));
  EXPECT_EQ(s.dtypes, std::vector<std::string>{"Float"});
  EXPECT_EQ(r.culprits, std::vector<std::string>{"rank 37"});
  EXPECT_NE(r.verdict.find("rank 37 never reached it"), std::string::npos) << r.verdict;
}

TEST(TriageSynthetic, UnmatchedSendRecvInAPipeline) {
  const std::string dir = MakeTempDir("triage-pp");
  const std::vector<TriageFixtureGroup> groups = {
      {"1", "PIPELINE_MODEL_PARALLEL_GROUP", {0, 1, 2, 3}}};
  auto p2p = [](int64_t seq, const std::string& op, const std::string& state) {
    TriageFixtureEntry e;
    e.pg = "1";
    e.desc = "PIPELINE_MODEL_PARALLEL_GROUP";
    e.seq = seq;
    e.op = op;
    e.state = state;
    e.p2p = true;
    return e;
  };
  // Stage 1 posts its send to stage 2 (p2p seq 5); stage 2 never posts the recv.
  WriteFileBytes(dir + "/nccl_trace_rank_0.json",
                 TriageFixtureDump(groups, {p2p(4, "nccl:send 0->1", "completed")}));
  WriteFileBytes(dir + "/nccl_trace_rank_1.json",
                 TriageFixtureDump(groups, {p2p(4, "nccl:recv 1<-0", "completed"),
                                            p2p(5, "nccl:send 1->2", "scheduled")}));
  WriteFileBytes(dir + "/nccl_trace_rank_2.json",
                 TriageFixtureDump(groups, {p2p(4, "nccl:recv 2<-1", "completed")}));
  WriteFileBytes(dir + "/nccl_trace_rank_3.json",
                 TriageFixtureDump(groups, {p2p(4, "nccl:recv 3<-2", "completed")}));
  const analysis::TriageReport r = TriageFixtureRun(dir);
  EXPECT_EQ(r.verdict_kind, "hang");
  const analysis::StuckCollective* s = TriageFixtureFind(r, "1");
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(s->p2p);
  EXPECT_EQ(s->op, "nccl:send 1->2");
  EXPECT_EQ(s->seq, 5);
  EXPECT_EQ(s->inside, std::vector<int64_t>{1});
  EXPECT_EQ(s->missing, std::vector<int64_t>{2});
  ASSERT_EQ(s->unmatched_p2p.size(), 1U);
  EXPECT_EQ(s->unmatched_p2p[0], "rank 1 send -> rank 2: rank 2 never posted the matching recv");
  EXPECT_EQ(r.culprits, std::vector<std::string>{"rank 2"});
}

TEST(TriageSynthetic, ARankThatDiedLeavesAnEmptyDump) {
  const std::string dir = MakeTempDir("triage-dead");
  const std::vector<TriageFixtureGroup> groups = {{"0", "default_pg", TriageFixtureRange(0, 7)}};
  for (int64_t r = 0; r < 8; ++r) {
    WriteFileBytes(fmt::format("{}/nccl_trace_rank_{}.json", dir, r),
                   TriageFixtureDump(groups, r == 5 ? std::vector<TriageFixtureEntry>{}
                                                    : TriageFixtureRun("0", "default_pg", 2, 3)));
  }
  const analysis::TriageReport r = TriageFixtureRun(dir);
  ASSERT_FALSE(r.stuck.empty());
  EXPECT_EQ(r.stuck.front().seq, 3);
  EXPECT_EQ(r.stuck.front().missing, std::vector<int64_t>{5});
  EXPECT_EQ(r.stuck.front().empty_dumps, std::vector<int64_t>{5});
  bool ended = false;
  for (const analysis::RankEnding& e : r.endings) {
    ended = ended || (e.rank == 5 && e.how == "stopped-recording");
  }
  EXPECT_TRUE(ended);
}

TEST(TriageSynthetic, TimeLimitWithNoHang) {
  const std::string dir = MakeTempDir("triage-time");
  const std::vector<TriageFixtureGroup> groups = {{"0", "default_pg", TriageFixtureRange(0, 3)}};
  for (int64_t r = 0; r < 4; ++r) {
    WriteFileBytes(fmt::format("{}/nccl_trace_rank_{}.json", dir, r),
                   TriageFixtureDump(groups, TriageFixtureRun("0", "default_pg", 40, 40)));
  }
  WriteFileBytes(dir + "/slurm-1234.out",
                 "iteration 100/1000 | loss 2.31\n"
                 "slurmstepd: error: *** JOB 1234 ON nid001 CANCELLED AT 2024-05-01T10:00:00 DUE "
                 "TO TIME LIMIT ***\n");
  const analysis::TriageReport r = TriageFixtureRun(dir);
  EXPECT_EQ(r.verdict_kind, "time-limit");
  EXPECT_TRUE(r.stuck.empty());
  ASSERT_FALSE(r.endings.empty());
  EXPECT_EQ(r.endings.front().how, "time-limit");
  EXPECT_EQ(r.endings.front().node, "job");
}

TEST(TriageSynthetic, TwoProcessGroupsStuckAtOnce) {
  const std::string dir = MakeTempDir("triage-two");
  const std::vector<TriageFixtureGroup> groups = {
      {"0", "default_pg", TriageFixtureRange(0, 7)},
      {"1", "TENSOR_MODEL_PARALLEL_GROUP", TriageFixtureRange(0, 3)},
      {"2", "TENSOR_MODEL_PARALLEL_GROUP", TriageFixtureRange(4, 7)}};
  for (int64_t r = 0; r < 8; ++r) {
    const std::string pg = r < 4 ? "1" : "2";
    // Rank 2 stops before collective 9 of group 1; rank 6 before 9 of group 2.
    const int64_t last = (r == 2 || r == 6) ? 8 : 9;
    std::vector<TriageFixtureEntry> entries = TriageFixtureRun("0", "default_pg", 5, 5);
    for (const TriageFixtureEntry& e :
         TriageFixtureRun(pg, "TENSOR_MODEL_PARALLEL_GROUP", 8, last)) {
      entries.push_back(e);
    }
    WriteFileBytes(fmt::format("{}/nccl_trace_rank_{}.json", dir, r),
                   TriageFixtureDump(groups, entries));
  }
  const analysis::TriageReport r = TriageFixtureRun(dir);
  EXPECT_EQ(r.verdict_kind, "hang");
  const analysis::StuckCollective* g1 = TriageFixtureFind(r, "1");
  const analysis::StuckCollective* g2 = TriageFixtureFind(r, "2");
  ASSERT_NE(g1, nullptr);
  ASSERT_NE(g2, nullptr);
  EXPECT_EQ(g1->missing, std::vector<int64_t>{2});
  EXPECT_EQ(g2->missing, std::vector<int64_t>{6});
  EXPECT_EQ(g1->seq, 9);
  std::vector<std::string> culprits = r.culprits;
  std::sort(culprits.begin(), culprits.end());
  EXPECT_EQ(culprits, (std::vector<std::string>{"rank 2", "rank 6"}));
  EXPECT_NE(r.verdict.find("2 process groups at once"), std::string::npos) << r.verdict;
}

TEST(TriageSynthetic, DumpsOfTwoJobsInOneFolderAreKeptApart) {
  const std::string dir = MakeTempDir("triage-mixed");
  // Job A: 4 ranks, rank 1 behind. Job B: 8 ranks, rank 7 behind.
  const std::vector<TriageFixtureGroup> a = {{"0", "default_pg", TriageFixtureRange(0, 3)}};
  const std::vector<TriageFixtureGroup> b = {{"0", "default_pg", TriageFixtureRange(0, 7)}};
  for (int64_t r = 0; r < 4; ++r) {
    WriteFileBytes(fmt::format("{}/jobA_nccl_trace_rank_{}.json", dir, r),
                   TriageFixtureDump(a, TriageFixtureRun("0", "default_pg", 3, r == 1 ? 3 : 4)));
  }
  for (int64_t r = 0; r < 8; ++r) {
    WriteFileBytes(fmt::format("{}/jobB_nccl_trace_rank_{}.json", dir, r),
                   TriageFixtureDump(b, TriageFixtureRun("0", "default_pg", 20, r == 7 ? 20 : 21)));
  }
  const analysis::TriageReport r = TriageFixtureRun(dir);
  ASSERT_EQ(r.jobs.size(), 2U);
  EXPECT_EQ(r.jobs[0].ranks.size(), 8U);
  EXPECT_EQ(r.jobs[1].ranks.size(), 4U);
  EXPECT_FALSE(r.jobs[1].why.empty());
  const analysis::StuckCollective* job_b = TriageFixtureFind(r, "0", 0);
  const analysis::StuckCollective* job_a = TriageFixtureFind(r, "0", 1);
  ASSERT_NE(job_b, nullptr);
  ASSERT_NE(job_a, nullptr);
  EXPECT_EQ(job_b->missing, std::vector<int64_t>{7});
  EXPECT_EQ(job_b->seq, 21);
  EXPECT_EQ(job_a->missing, std::vector<int64_t>{1});
  EXPECT_EQ(job_a->seq, 4);
  EXPECT_EQ(job_a->members, TriageFixtureRange(0, 3));  // never merged with job B's ranks
  EXPECT_EQ(r.culprits, std::vector<std::string>{"rank 7"});
}

TEST(TriageLogLines, WatchdogLineAndItsCompletion) {
  const model::FailureLog log = formats::ParseFailureLog(
      "[2024-11-08 21:30:01,120] noise\n"
      "[rank3]:[E ProcessGroupNCCL.cpp:563] [Rank 3] Watchdog caught collective operation "
      "timeout: WorkNCCL(SeqNum=17, OpType=ALLREDUCE, NumelIn=4096, NumelOut=4096, "
      "Timeout(ms)=600000) ran for 600071 milliseconds before timing out.\n"
      "[rank3]:[E ProcessGroupNCCL.cpp:1537] [PG 2 Rank 3] Timeout at NCCL work: 17, last "
      "enqueued NCCL work: 18, last completed NCCL work: 16.\n"
      "node1: rank 3 died from signal 6 and dumped core\n",
      "/logs/rank3.log");
  ASSERT_EQ(log.events.size(), 2U);
  const model::FailureEvent& w = log.events[0];
  EXPECT_EQ(w.kind, model::FailureKind::kWatchdogTimeout);
  EXPECT_EQ(w.rank, 3);
  EXPECT_EQ(w.seq, 17);
  EXPECT_EQ(w.op, "ALLREDUCE");
  EXPECT_EQ(w.numel_in, 4096);
  EXPECT_EQ(w.timeout_ms, 600000);
  EXPECT_EQ(w.ran_ms, 600071);
  EXPECT_EQ(w.pg, 2);
  EXPECT_EQ(w.last_enqueued, 18);
  EXPECT_EQ(w.last_completed, 16);
  EXPECT_EQ(log.events[1].kind, model::FailureKind::kSignal);
  EXPECT_EQ(log.events[1].signal, 6);
  EXPECT_EQ(log.events[1].rank, 3);
}

TEST(TriageLogLines, PlogClockIdentityAndLinkRow) {
  const model::FailureLog log = formats::ParseFailureLog(
      "[INFO] HCCL(77,python):2025-01-24-11:10:27.614.147 [topoinfo_detect.cc:221][3475]"
      "[HCCL_TRACE]SetupAgent rankNum[4], rank[2], rootInfo identifier[g], server[10.0.0.1], "
      "logicDevId[5], phydevId[5], deviceIp[1.2.3.4]\n"
      "[ERROR] HCCL(77,python3):2025-01-24-11:24:07.908.572 [comm_base.cc:1018][1]   |  "
      "1.2.3.9(3)   |   1.2.3.4(2)   |  client  | no connect |\n",
      "/job/worker-1/process_log/run/plog/plog-77_20250124.log");
  EXPECT_EQ(log.worker, "worker-1");
  EXPECT_EQ(log.pid, 77);
  ASSERT_TRUE(log.identity.has_value());
  EXPECT_EQ(log.identity->rank, 2);
  EXPECT_EQ(log.identity->rank_num, 4);
  EXPECT_EQ(log.identity->device, 5);
  ASSERT_EQ(log.links.size(), 1U);
  EXPECT_EQ(log.links[0].src_rank, 2);
  EXPECT_EQ(log.links[0].dest_rank, 3);
  EXPECT_EQ(log.links[0].status, "no connect");
  EXPECT_EQ(log.links[0].role, "client");
  // 2025-01-24 11:24:07.908572 UTC.
  EXPECT_EQ(log.links[0].time_ns, int64_t{1737717847908572000});
  EXPECT_EQ(formats::ParseLogClock("2024-11-08 21:21:27,123"), int64_t{1731100887123000000});
  EXPECT_FALSE(formats::ParseLogClock("2024-13-08 21:21:27").has_value());
}

TEST(TriageLoader, DamagedPickledDumpIsListedWithTheReadersReason) {
  const std::string dir = MakeTempDir("triage-pickle");
  WriteFileBytes(dir + "/_dump_0", std::string("\x80\x04\x95", 3) + "rest");
  const formats::FlightRecorderFile f =
      formats::ReadFlightRecorderFile(std::string("\x80\x02}q", 4), "x");
  EXPECT_FALSE(f.dump.has_value());
  EXPECT_FALSE(f.error.empty());
  const model::TriageInputs in = formats::LoadTriageInputs({dir}, 1);
  EXPECT_TRUE(in.dumps.empty());
  ASSERT_EQ(in.not_read.size(), 1U);
  EXPECT_FALSE(in.not_read[0].reason.empty());
}

TEST(TriageLoader, JsonDumpFieldsAreRead) {
  const std::string json = R"({"version": "2.9",
    "pg_config": {"72": {"name": "72", "desc": "EXPERT_MODEL_PARALLEL_GROUP", "ranks": "[8, 9]"}},
    "pg_status": {"11": {"last_enqueued_collective": 44796, "last_started_collective": -1,
                         "last_completed_collective": 44790}},
    "entries": [{"pg_id": 11, "process_group": ["72", "EXPERT_MODEL_PARALLEL_GROUP"],
      "collective_seq_id": 44791, "p2p_seq_id": 0, "profiling_name": "nccl:all_to_all",
      "time_created_ns": 1758580156124299034, "input_sizes": [[2048, 5120]],
      "input_dtypes": ["BFloat16"], "output_sizes": [[2048, 5120]], "output_dtypes": ["BFloat16"],
      "state": "scheduled", "timeout_ms": 600000, "duration_ms": 1.5, "is_p2p": false}]})";
  auto d = formats::ParseFlightRecorderJson(json, "_dump_8");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->version, "2.9");
  EXPECT_EQ(d->pg_descs.at("72"), "EXPERT_MODEL_PARALLEL_GROUP");
  EXPECT_EQ(d->pg_status.at("11").last_enqueued, 44796);
  EXPECT_FALSE(d->pg_status.at("11").last_started.has_value());  // -1: never
  EXPECT_EQ(d->pg_status.at("11").last_completed, 44790);
  ASSERT_EQ(d->entries.size(), 1U);
  const model::FlightRecorderEntry& e = d->entries[0];
  EXPECT_EQ(e.pg_id, 11);
  EXPECT_EQ(e.p2p_seq_id, 0);
  EXPECT_EQ(e.input_sizes, (std::vector<std::vector<int64_t>>{{2048, 5120}}));
  EXPECT_EQ(e.output_dtypes, std::vector<std::string>{"BFloat16"});
  EXPECT_EQ(e.time_created_ns, int64_t{1758580156124299034});
  EXPECT_EQ(e.timeout_ms, 600000);
  EXPECT_EQ(e.duration_ms, 1.5);
}

// A Megatron-LM training line (`health`'s reader reads it).
std::string TriageMegatronLine(int64_t iteration, int second, const std::string& prefix = "") {
  return fmt::format(
      "{} [2024-05-01 10:{:02d}:{:02d}] iteration {:8d}/{:8d} | consumed samples: {:12d} | "
      "elapsed time per iteration (ms): 1000.0 | learning rate: 3.000000E-04 | global batch "
      "size:   256 | lm loss: 3.000000E+00 | loss scale: 1.0 | grad norm: 1.000 | number of "
      "skipped iterations:   0 | number of nan iterations:   0 |\n",
      prefix, second / 60, second % 60, iteration, 1000, iteration * 256);
}

const analysis::TriageRankEvidence* TriageFixtureRank(const analysis::TriageReport& r,
                                                      int64_t rank) {
  for (const analysis::TriageRankEvidence& e : r.ranks) {
    if (e.rank == rank) return &e;
  }
  return nullptr;
}

TEST(TriageTraining, ARankBehindInItsTrainingLogIsTheVerdictWhenNothingElseSpeaks) {
  // tests/data/logs/triage_steps (make_fixtures.py): one Megatron log per
  // rank naming no rank in its lines; rank 1 stops at iteration 80
  // (10:01:10), the others reach 120.
  const model::TriageInputs in = formats::LoadTriageInputs({DataDir() + "/logs/triage_steps"}, 2);
  ASSERT_EQ(in.training.size(), 4U);
  EXPECT_TRUE(in.dumps.empty());
  EXPECT_TRUE(in.not_read.empty());
  const analysis::TriageReport r = analysis::Triage(in);
  EXPECT_EQ(r.training_logs, 4);
  EXPECT_EQ(r.furthest_step, 120);
  EXPECT_EQ(r.behind, std::vector<int64_t>{1});
  EXPECT_EQ(r.verdict_kind, "hang");
  EXPECT_EQ(r.culprits, std::vector<std::string>{"rank 1"});
  EXPECT_NE(r.verdict.find("rank 1 last logged step 80, the others step 120"), std::string::npos)
      << r.verdict;
  ASSERT_EQ(r.last_steps.size(), 4U);
  const analysis::TrainingStep& one = r.last_steps[1];
  EXPECT_EQ(one.rank, 1);  // from the file name
  EXPECT_EQ(one.step, 80);
  EXPECT_FALSE(one.ordinal);
  EXPECT_EQ(one.line, 9);  // the header line, then iterations 10..80
  // 2024-05-01 10:01:10 UTC.
  EXPECT_EQ(one.time_ns, int64_t{1714557670} * 1'000'000'000);
  const analysis::TriageRankEvidence* ev = TriageFixtureRank(r, 1);
  ASSERT_NE(ev, nullptr);
  EXPECT_EQ(ev->last_step, 80);
  EXPECT_EQ(ev->state, "behind");
  const analysis::TriageRankEvidence* ahead = TriageFixtureRank(r, 0);
  ASSERT_NE(ahead, nullptr);
  EXPECT_EQ(ahead->last_step, 120);
  EXPECT_TRUE(ahead->state.empty());
}

TEST(TriageTraining, LastStepsJoinTheDumpsEvidenceAndTheVerdict) {
  const std::string dir = MakeTempDir("triage-steps");
  const std::vector<TriageFixtureGroup> groups = {{"0", "default_pg", TriageFixtureRange(0, 3)}};
  for (int64_t r = 0; r < 4; ++r) {
    // Rank 2 never enqueued all-reduce 7; the others sit in it.
    WriteFileBytes(
        fmt::format("{}/nccl_trace_rank_{}.json", dir, r),
        TriageFixtureDump(groups, TriageFixtureRun("0", "default_pg", 6, r == 2 ? 6 : 7)));
  }
  // One interleaved log whose lines name their ranks: rank 2 last printed
  // iteration 20, the others 30.
  std::string log;
  for (int64_t it = 10; it <= 30; it += 10) {
    for (int64_t r = 0; r < 4; ++r) {
      if (r == 2 && it == 30) continue;
      log += TriageMegatronLine(it, static_cast<int>(it), fmt::format("[rank{}]:", r));
    }
  }
  WriteFileBytes(dir + "/train.log", log);
  const analysis::TriageReport r = TriageFixtureRun(dir);
  EXPECT_EQ(r.training_logs, 1);
  EXPECT_EQ(r.verdict_kind, "hang");
  EXPECT_EQ(r.culprits, std::vector<std::string>{"rank 2"});  // the dumps' verdict stands
  EXPECT_EQ(r.behind, std::vector<int64_t>{2});
  EXPECT_NE(r.verdict.find("; training logs: rank 2 last logged step 20, the others step 30"),
            std::string::npos)
      << r.verdict;
  const analysis::TriageRankEvidence* ev = TriageFixtureRank(r, 2);
  ASSERT_NE(ev, nullptr);
  EXPECT_EQ(ev->state, "missing");
  EXPECT_EQ(ev->last_step, 20);
  EXPECT_EQ(ev->last_step_ns, (int64_t{1714557600} + 20) * 1'000'000'000);
  const analysis::TriageRankEvidence* other = TriageFixtureRank(r, 3);
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(other->last_step, 30);
}

TEST(TriageText, RankListsAreRangesAndExceptions) {
  std::vector<int64_t> all;
  for (int64_t r = 0; r < 1024; ++r) all.push_back(r);
  EXPECT_EQ(analysis::TriageWorldOf(all), 1024U);
  EXPECT_EQ(analysis::TriageWorldOf({8, 9, 10}), 0U);
  EXPECT_EQ(analysis::TriageRankPhrase(all), "ranks 0-1023");
  EXPECT_EQ(analysis::TriageRankPhrase(all, 1024), "all 1,024 ranks");
  std::vector<int64_t> but_seven = all;
  but_seven.erase(but_seven.begin() + 7);
  EXPECT_EQ(analysis::TriageRankPhrase(but_seven, 1024), "all 1,024 ranks but 7");
  EXPECT_EQ(analysis::TriageRankPhrase({14, 9}), "ranks 9, 14");
  EXPECT_EQ(analysis::TriageRankPhrase({37}, 64), "rank 37");
}

TEST(TriageText, AWatchdogTimeoutOnAllButOneRankSaysSo) {
  const std::string dir = MakeTempDir("triage-watchdog");
  std::string log;
  for (int64_t r = 0; r < 16; ++r) {
    log += fmt::format("NCCL INFO comm 0x55 rank {} nRanks 16 nNodes 2 localRanks 8\n", r);
  }
  for (int64_t r = 0; r < 16; ++r) {
    if (r == 5) continue;
    log += fmt::format(
        "[rank{}]:[E ProcessGroupNCCL.cpp:563] [Rank {}] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, NumelIn=8, NumelOut=8, "
        "Timeout(ms)=600000) ran for 600001 milliseconds before timing out.\n",
        r, r);
  }
  WriteFileBytes(dir + "/job.log", log);
  const analysis::TriageReport r = TriageFixtureRun(dir);
  EXPECT_EQ(r.verdict_kind, "hang");
  EXPECT_NE(r.verdict.find("timed out on all 16 ranks but 5, which left no timeout line"),
            std::string::npos)
      << r.verdict;
}

TEST(TriageCli, JsonSchemaAndExitCodes) {
  const std::string dir = MakeTempDir("triage-cli");
  const std::vector<TriageFixtureGroup> groups = {{"0", "default_pg", TriageFixtureRange(0, 3)}};
  for (int64_t r = 0; r < 4; ++r) {
    WriteFileBytes(
        fmt::format("{}/nccl_trace_rank_{}.json", dir, r),
        TriageFixtureDump(groups, TriageFixtureRun("0", "default_pg", 6, r == 0 ? 6 : 7)));
  }
  const CommandResult json = RunTrainscope({"triage", dir, "--json", "-"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json.out).get(doc), simdjson::SUCCESS) << json.out;
  EXPECT_EQ(std::string_view(doc["schema"]), "trainscope.triage/1");
  EXPECT_EQ(std::string_view(doc["verdict_kind"]), "hang");
  EXPECT_EQ(int64_t(doc["stuck"].at(0)["missing"].at(0)), 0);
  EXPECT_EQ(int64_t(doc["stuck"].at(0)["seq"]), 7);
  const std::string html = MakeTempDir("triage-html") + "/triage.html";
  const CommandResult text = RunTrainscope({"triage", dir, "--html", html});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out.rfind("verdict: hang in PG 0 (default_pg) nccl:all_reduce seq 7", 0), 0U)
      << text.out;
  EXPECT_NE(ReadFileBytes(html).find("Per rank: last events and first errors"), std::string::npos);
  const std::string empty = MakeTempDir("triage-empty");
  WriteFileBytes(empty + "/README.txt", "nothing here\n");
  const CommandResult none = RunTrainscope({"triage", empty});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("nothing readable"), std::string::npos) << none.err;
}

}  // namespace
}  // namespace trainscope::testing
