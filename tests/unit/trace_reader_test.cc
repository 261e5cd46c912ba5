// Inline traces for each Kineto schema generation, trace_view.json, and each
// kind of damage the readers must survive.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "formats/trace/chrome_json.h"
#include "formats/trace/kineto_reader.h"
#include "formats/trace/trace_view_reader.h"
#include "model/rank_profile.h"
#include "model/timeline_classify.h"

namespace trainscope {
namespace {

// A current-schema (2024+) trace: relative ts with ns fraction, ac2g flow,
// collective args, ProfilerStep, [memory], metadata, distributedInfo.
const char* kCurrent = R"J({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "NVIDIA H100", "totalGlobalMem": 85000000000, "numSms": 132}],
  "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8,
     "pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "pg_size": 8, "ranks": [0,1,2,3,4,5,6,7]}]},
  "traceEvents": [
    {"ph": "M", "name": "process_name", "pid": 100, "tid": 0, "args": {"name": "python"}},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#7", "pid": 100, "tid": 100, "ts": 1000.000, "dur": 100.5, "args": {"External id": 1}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 100, "ts": 1001.250, "dur": 10.000, "args": {"External id": 2, "Input Dims": [[2,3],[3,4]]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": 1002.000, "dur": 3.5, "args": {"External id": 2, "correlation": 55}},
    {"ph": "s", "id": 55, "pid": 100, "tid": 100, "ts": 1002.000, "cat": "ac2g", "name": "ac2g"},
    {"ph": "X", "cat": "kernel", "name": "void at::native::gemm<float, 4>(int)", "pid": 0, "tid": 7, "ts": 1010.123, "dur": 20.001, "args": {"External id": 2, "device": 0, "stream": 7, "correlation": 55}},
    {"ph": "f", "id": 55, "pid": 0, "tid": 7, "ts": 1010.123, "cat": "ac2g", "name": "ac2g", "bp": "e"},
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)", "pid": 0, "tid": 20, "ts": 1020.000, "dur": 30.000, "args": {"device": 0, "stream": 20, "correlation": 56, "Collective name": "allreduce", "In msg nelems": 2049000, "Out msg nelems": 2049000, "Group size": 2, "dtype": "Float", "Process Group Name": "0", "Process Group Description": "default_pg", "Process Group Ranks": "[0, 1]"}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD (Device -> Device)", "pid": 0, "tid": 7, "ts": 1060.000, "dur": 5.000, "args": {"device": 0, "stream": 7, "correlation": 57, "bytes": 1024}},
    {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 100, "tid": 100, "ts": 1003.000, "s": "t", "args": {"Device Type": 1, "Device Id": 0, "Addr": 1, "Bytes": -512, "Total Allocated": 4096, "Total Reserved": 8192}},
    {"ph": "C", "name": "counter", "pid": 0, "ts": 1000, "args": {"x": 1}}
  ],
  "baseTimeNanoseconds": 1767189312000000000
})J";

TEST(KinetoReader, CurrentSchema) {
  model::RankProfile p;
  ASSERT_TRUE(formats::ParseKinetoTrace(kCurrent, "current", &p).ok());
  const model::Timeline& tl = p.timeline;
  EXPECT_TRUE(tl.present);
  EXPECT_TRUE(p.warnings.empty());
  EXPECT_EQ(tl.base_time_ns, 1767189312000000000);
  ASSERT_EQ(p.device_events.size(), 3u);
  EXPECT_EQ(p.device_events.start_ns[0], 1010123);
  EXPECT_EQ(p.device_events.duration_ns[0], 20001);
  EXPECT_EQ(p.device_events.kind[0], model::ActivityKind::kCompute);
  EXPECT_EQ(p.device_events.kind[1], model::ActivityKind::kCommunication);
  EXPECT_EQ(p.device_events.kind[2], model::ActivityKind::kMemcpy);
  ASSERT_NE(p.device_events.launcher[0], model::kNoIndex);
  EXPECT_EQ(p.strings.Get(tl.host_ops.name[static_cast<size_t>(p.device_events.launcher[0])]),
            "cudaLaunchKernel");
  EXPECT_EQ(p.device_events.step[0], 7);
  ASSERT_EQ(tl.steps.size(), 1u);
  EXPECT_EQ(tl.steps[0].start_ns, 1000000);
  EXPECT_EQ(tl.steps[0].end_ns, 1100500);
  // Depth from strict nesting: step 0, mm 1, launch 2.
  for (size_t i = 0; i < tl.host_ops.size(); ++i) {
    std::string_view name = p.strings.Get(tl.host_ops.name[i]);
    if (name == "cudaLaunchKernel") {
      EXPECT_EQ(tl.host_ops.depth[i], 2);
    }
    if (name == "aten::mm") {
      EXPECT_EQ(tl.host_ops.depth[i], 1);
    }
  }
  ASSERT_EQ(tl.collectives.size(), 1u);
  EXPECT_EQ(tl.collectives[0].in_nelems, 2049000);
  EXPECT_EQ(p.strings.Get(tl.collectives[0].pg_ranks), "[0, 1]");
  ASSERT_EQ(tl.memory.size(), 1u);
  EXPECT_EQ(tl.memory[0].bytes, -512);
  EXPECT_EQ(tl.memory[0].total_reserved, 8192);
  EXPECT_EQ(tl.distributed.rank, 3);
  EXPECT_EQ(tl.distributed.world_size, 8);
  ASSERT_EQ(tl.distributed.process_groups.size(), 1u);
  EXPECT_EQ(tl.distributed.process_groups[0].ranks.size(), 8u);
  ASSERT_EQ(tl.devices.size(), 1u);
  EXPECT_EQ(tl.devices[0].name, "NVIDIA H100");
  EXPECT_EQ(p.rank, 3);
  ASSERT_EQ(tl.flows.size(), 1u);
  EXPECT_EQ(p.device_events.size(), 3u);
  // The op type keeps the template arguments (model/kernel_names.h).
  EXPECT_EQ(p.strings.Get(p.device_events.op_type[0]), "at::native::gemm<float,4>");
  // A trace has no wait, block dim or tensor strings: nothing stored for
  // them (12 bytes a row, docs/benchmarks.md).
  EXPECT_FALSE(p.device_events.wait_ns.stored() || p.device_events.block_dim.stored());
  EXPECT_EQ(p.device_events.tensor_descriptions().size(), 1u);
  const RowLedger& ledger = p.ledgers.back();
  EXPECT_EQ(ledger.rows_read(), ledger.rows_used() + ledger.rows_skipped());
  EXPECT_EQ(ledger.skipped_by_reason().at("counter"), 1);
}

// 2021 tb_plugin schema: Operator/Runtime/Kernel, integer µs, tid as string,
// flow cat "async".
const char* k2021 = R"J({"traceEvents": [
  {"ph": "X", "cat": "Operator", "name": "ProfilerStep#1", "pid": 25738, "tid": "25738", "ts": 1623142623460000, "dur": 500},
  {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 25738, "tid": "25738", "ts": 1623142623460100, "dur": 7, "args": {"correlation": 9, "external id": 3}},
  {"ph": "X", "cat": "Kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": "stream 7", "ts": 1623142623460120, "dur": 40, "args": {"correlation": 9, "stream": 7, "device": 0}},
  {"ph": "X", "cat": "Memset", "name": "Memset (Device)", "pid": 0, "tid": "stream 7", "ts": 1623142623460170, "dur": 2, "args": {"stream": 7, "device": 0}}
]})J";

TEST(KinetoReader, Schema2021) {
  model::RankProfile p;
  ASSERT_TRUE(formats::ParseKinetoTrace(k2021, "2021", &p).ok());
  ASSERT_EQ(p.device_events.size(), 2u);
  EXPECT_EQ(p.device_events.start_ns[0], 1623142623460120000);
  EXPECT_EQ(p.device_events.stream[0], 7);
  EXPECT_EQ(p.device_events.kind[1], model::ActivityKind::kMemset);
  EXPECT_NE(p.device_events.launcher[0], model::kNoIndex);
  EXPECT_EQ(p.device_events.step[0], 1);
  EXPECT_EQ(p.device_events.step[1], 1);  // unlinked: falls back to its own start
}

// ROCm: hip runtime names, string pid, async_cpu_to_gpu flows (2022).
TEST(KinetoReader, RocmAndStringPid) {
  const char* json = R"J({"traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": "4242", "tid": 4242, "ts": 10.5, "dur": 2, "args": {"correlation": 1}},
    {"ph": "s", "cat": "async_cpu_to_gpu", "id": 1, "pid": "4242", "tid": 4242, "ts": 10.5},
    {"ph": "X", "cat": "kernel", "name": "Cijk_Ailk_Bljk_HHS_BH_MT128x128", "pid": 2, "tid": 0, "ts": 20.25, "dur": 5, "args": {"device": 2, "stream": 0, "kind": "Dispatch Kernel"}},
    {"ph": "f", "cat": "async_cpu_to_gpu", "id": 1, "pid": 2, "tid": 0, "ts": 20.25, "bp": "e"},
    {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 0, "dur": 100}
  ]})J";
  model::RankProfile p;
  ASSERT_TRUE(formats::ParseKinetoTrace(json, "rocm", &p).ok());
  const model::Timeline& tl = p.timeline;
  ASSERT_EQ(p.device_events.size(), 1u);
  EXPECT_EQ(p.device_events.device[0], 2);
  ASSERT_NE(p.device_events.launcher[0], model::kNoIndex);  // linked through the flow
  EXPECT_EQ(tl.host_ops.size(), 2u);
  EXPECT_EQ(tl.step_source, model::StepSource::kNone);
}

const char* kTwoEvents =
    R"J({"traceEvents": [
{"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 1.0, "dur": 1.0},
{"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 3.0, "dur": 1.0})J";

void ExpectDamaged(const std::string& json, size_t kept, const std::string& reason_part) {
  model::RankProfile p;
  Status s = formats::ParseKinetoTrace(json, "damaged.json", &p);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(p.device_events.size(), kept);
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("damaged.json"), std::string::npos) << p.warnings[0];
  EXPECT_NE(p.warnings[0].find("byte"), std::string::npos) << p.warnings[0];
  EXPECT_NE(p.warnings[0].find(reason_part), std::string::npos) << p.warnings[0];
}

TEST(KinetoReader, TruncatedMidEvent) {
  ExpectDamaged(std::string(kTwoEvents) + ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"na", 2,
                "truncated");
}

TEST(KinetoReader, TruncatedAfterEvent) { ExpectDamaged(kTwoEvents, 2, "truncated"); }

TEST(KinetoReader, TrailingComma) {
  ExpectDamaged(std::string(kTwoEvents) + ",\n]}", 2, "trailing comma");
}

// An event that does not parse but whose extent is known is skipped and
// counted; the read goes on (tests/hostile/trace_bad_event_test.cc has more).
TEST(KinetoReader, InvalidUtf8EventIsSkipped) {
  std::string json = std::string(kTwoEvents) +
                     ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"bad\xff\xfe\", \"pid\": "
                     "0, \"tid\": 7, \"ts\": 5, \"dur\": 1},\n"
                     "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k4\", \"pid\": 0, \"tid\": "
                     "7, \"ts\": 9, \"dur\": 1}]}";
  model::RankProfile p;
  ASSERT_TRUE(formats::ParseKinetoTrace(json, "damaged.json", &p).ok());
  EXPECT_EQ(p.device_events.size(), 3u);
  EXPECT_TRUE(p.warnings.empty());
  EXPECT_EQ(p.ledgers.at(0).skipped_by_reason().at("invalid UTF-8"), 1);
}

TEST(KinetoReader, UnescapedQuote) {
  std::string json = std::string(kTwoEvents) +
                     ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"a \"quoted\" b\", "
                     "\"pid\": 0, \"tid\": 7, \"ts\": 5, \"dur\": 1},\n"
                     "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k4\", \"pid\": 0, \"tid\": "
                     "7, \"ts\": 9, \"dur\": 1}]}";
  model::RankProfile p;
  ASSERT_TRUE(formats::ParseKinetoTrace(json, "damaged.json", &p).ok());
  EXPECT_EQ(p.device_events.size(), 3u);  // k1, k2, k4: the bad event is skipped
  EXPECT_TRUE(p.warnings.empty());
  EXPECT_EQ(p.ledgers.at(0).skipped_by_reason().at("invalid event"), 1);
}

TEST(KinetoReader, IdOverflowKeepsEvent) {
  const char* json = R"J({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1, "args": {"correlation": 99999999999999999999999}},
    {"ph": "s", "cat": "ac2g", "id": 99999999999999999999999, "pid": 1, "tid": 1, "ts": 1}]})J";
  model::RankProfile p;
  ASSERT_TRUE(formats::ParseKinetoTrace(json, "ids", &p).ok());
  ASSERT_EQ(p.device_events.size(), 1u);
  EXPECT_EQ(p.device_events.correlation[0], model::kNoId);
  EXPECT_EQ(p.ledgers.back().skipped_by_reason().at("id overflow"), 1);
  EXPECT_EQ(p.ledgers.back().notes_by_reason().count("id overflow (correlation dropped)"), 1u);
}

TEST(KinetoReader, NoValidEventIsInvalidInput) {
  model::RankProfile p;
  Status s =
      formats::ParseKinetoTrace("{\"traceEvents\": [{\"ph\": \"X\", \"na", "broken.json", &p);
  EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
  EXPECT_NE(s.message().find("broken.json"), std::string::npos);
  EXPECT_NE(s.message().find("byte"), std::string::npos);
}

TEST(KinetoReader, MissingTsIsCounted) {
  const char* json =
      R"J({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "dur": 1},
                                          {"ph": "Q", "name": "odd"}]})J";
  model::RankProfile p;
  ASSERT_TRUE(formats::ParseKinetoTrace(json, "x", &p).ok());
  const RowLedger& l = p.ledgers.back();
  EXPECT_EQ(l.rows_read(), 2);
  EXPECT_EQ(l.skipped_by_reason().at("missing ts"), 1);
  EXPECT_EQ(l.skipped_by_reason().at("unknown phase"), 1);
}

TEST(ActivityRules, ParseAndOrder) {
  auto rules = model::ParseClassRules(
      "# kind        match     pattern\n"
      "communication\tcontains\tmy_allreduce\n"
      "compute  prefix  nccl_fake_compute\n\n",
      "rules.tsv");
  ASSERT_TRUE(rules.ok()) << rules.status().message();
  ASSERT_EQ(rules->size(), 2u);
  auto all = model::WithDefaultClassRules(*rules);
  EXPECT_EQ(all.size(), 2 + model::DefaultClassRules().size());
  // User rules come first, so they override the built-in ^nccl.
  EXPECT_EQ(model::ClassifyActivity("nccl_fake_compute_kernel", "kernel", false, all),
            model::ActivityKind::kCompute);
  EXPECT_EQ(model::ClassifyActivity("void ns::my_allreduce<4>()", "kernel", false, all),
            model::ActivityKind::kCommunication);
  EXPECT_EQ(model::ClassifyActivity("ncclDevKernel_AllGather", "kernel", false, all),
            model::ActivityKind::kCommunication);

  auto bad = model::ParseClassRules("communication\tsuffix\tx\n", "rules.tsv");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("rules.tsv:1"), std::string::npos);
  EXPECT_NE(bad.status().message().find("hint"), std::string::npos);
  EXPECT_FALSE(model::ParseClassRules("bogus\tprefix\tx\n", "r").ok());
  EXPECT_FALSE(model::ParseClassRules("compute prefix\n", "r").ok());
}

TEST(KinetoReader, UserActivityRulesReachTheReader) {
  const char* json = R"J({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "custom_ar_kernel<8>", "pid": 0, "tid": 7, "ts": 10, "dur": 5},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 20, "dur": 5}]})J";
  model::RankProfile plain;
  Status read = formats::ParseKinetoTrace(json, "x", &plain);
  ASSERT_TRUE(read.ok()) << read.message();
  EXPECT_EQ(plain.device_events.kind[0], model::ActivityKind::kCompute);

  auto user = model::ParseClassRules("communication  prefix  custom_ar_kernel\n", "r");
  ASSERT_TRUE(user.ok());
  const auto rules = model::WithDefaultClassRules(*user);
  formats::trace::ScanOptions options;
  options.activity_rules = &rules;
  model::RankProfile custom;
  ASSERT_TRUE(formats::ParseKinetoTrace(json, "x", &custom, options).ok());
  EXPECT_EQ(custom.device_events.kind[0], model::ActivityKind::kCommunication);
  EXPECT_EQ(custom.device_events.kind[1], model::ActivityKind::kCompute);
}

// No ProfilerStep#N: the repeated top-level annotation covering the most
// time becomes the steps (0, 1, ...); a small repeated region does not.
TEST(KinetoReader, StepsFromRepeatedAnnotationWithoutProfilerStep) {
  std::string json = R"({"traceEvents": [)";
  int corr = 1;
  for (int k = 0; k < 3; ++k) {
    const int base = 1000 + k * 100;
    json += fmt::format(
        R"({{"ph": "X", "cat": "user_annotation", "name": "train_step", "pid": 1, "tid": 1, "ts": {}, "dur": 90}},)",
        base);
    json += fmt::format(
        R"({{"ph": "X", "cat": "user_annotation", "name": "log", "pid": 1, "tid": 1, "ts": {}, "dur": 5}},)",
        base + 92);
    for (int j = 0; j < 2; ++j, ++corr) {
      const int ts = base + 10 + j * 30;
      json += fmt::format(
          R"({{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": {}, "dur": 2, "args": {{"correlation": {}}}}},)",
          ts, corr);
      json += fmt::format(
          R"({{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": {}, "dur": 20, "args": {{"correlation": {}}}}},)",
          ts + 5, corr);
    }
  }
  json +=
      R"({"ph": "X", "cat": "kernel", "name": "late", "pid": 0, "tid": 7, "ts": 5000, "dur": 1}]})";
  model::RankProfile p;
  ASSERT_TRUE(formats::ParseKinetoTrace(json, "x", &p).ok());
  const model::Timeline& tl = p.timeline;
  ASSERT_EQ(tl.step_source, model::StepSource::kRepeatedAnnotation);
  EXPECT_EQ(tl.step_annotation, "train_step");
  ASSERT_EQ(tl.steps.size(), 3u);
  // An iteration runs from one occurrence to the next; the last one as long
  // as the earlier ones (the late kernel is far beyond).
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(tl.steps[k].number, k);
    EXPECT_EQ(tl.steps[k].start_ns, (1000 + k * 100) * 1000);
    EXPECT_EQ(tl.steps[k].end_ns, (1100 + k * 100) * 1000);
  }
  // Kernels take the step of their launch; the unlaunched late one, after
  // the last iteration, none, and it is said.
  for (size_t a = 0; a + 1 < p.device_events.size(); ++a)
    EXPECT_EQ(p.device_events.step[a], static_cast<int32_t>(a / 2));
  EXPECT_EQ(p.device_events.step.back(), -1);
  EXPECT_EQ(p.device_events.RowsOf(1).size(), 2u);
  EXPECT_NE(p.steps_from.find("'train_step'"), std::string::npos) << p.steps_from;
  EXPECT_NE(p.steps_from.find("1 device event (1.0 µs) after the last iteration"),
            std::string::npos)
      << p.steps_from;

  // One occurrence only (or only tiny repeats): the whole trace, no steps.
  model::RankProfile once;
  const char* single = R"J({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "train_step", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
    {"ph": "X", "cat": "user_annotation", "name": "log", "pid": 1, "tid": 1, "ts": 200, "dur": 1},
    {"ph": "X", "cat": "user_annotation", "name": "log", "pid": 1, "tid": 1, "ts": 300, "dur": 1},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 10, "dur": 20}]})J";
  ASSERT_TRUE(formats::ParseKinetoTrace(single, "x", &once).ok());
  EXPECT_EQ(once.timeline.step_source, model::StepSource::kNone);
  EXPECT_TRUE(once.timeline.steps.empty());
  EXPECT_TRUE(once.steps_from.empty());
}

// Skips are counted per batch and sampled: the ledger must still hold every
// row and the first samples of the file, whatever the chunking.
TEST(KinetoReader, LedgerSamplesAndCountsAcrossChunks) {
  std::string json = R"({"traceEvents": [)";
  const int n = 3000;
  for (int i = 0; i < n; ++i) {
    if (i) json += ",\n";
    if (i % 3 == 0) {
      json += R"({"ph": "i", "name": "marker", "pid": 1, "tid": 1, "ts": )" +
              std::to_string(100 + i) + "}";
    } else {
      json += R"({"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": )" +
              std::to_string(100 + i) + R"(, "dur": 1})";
    }
  }
  json += "]}";
  for (size_t chunk : {size_t{64}, size_t{4096}, size_t{1} << 20}) {
    for (unsigned threads : {1u, 2u, 3u}) {
      formats::trace::ScanOptions options;
      options.chunk_bytes = chunk;
      options.threads = threads;
      model::RankProfile p;
      ASSERT_TRUE(formats::ParseKinetoTrace(json, "x", &p, options).ok());
      const RowLedger& l = p.ledgers.back();
      EXPECT_EQ(l.rows_read(), n);
      EXPECT_EQ(l.rows_used() + l.rows_skipped(), l.rows_read());
      EXPECT_EQ(l.skipped_by_reason().at("instant event"), n / 3);
      EXPECT_EQ(static_cast<int>(p.timeline.host_ops.size()), n - n / 3);
      // The samples are the file's first three skipped events (1-based 1, 4, 7).
      ASSERT_EQ(l.samples().size(), RowLedger::kSamplesPerReason);
      EXPECT_EQ(l.samples()[0].line, 1);
      EXPECT_EQ(l.samples()[1].line, 4);
      EXPECT_EQ(l.samples()[2].line, 7);
    }
  }
}

// The Trace Event Format's "JSON Array Format" for a Kineto-style trace:
// the events of kCurrent as a bare top-level array read as the same events
// by every scan path (chunks down to 64 bytes, one to three threads); without
// its closing ']' every event is kept and the damage is the same truncation
// an unclosed traceEvents reports.
TEST(KinetoReader, JsonArrayFormatReadsTheSameEvents) {
  const std::string object(kCurrent);
  const size_t open = object.find('[', object.find("\"traceEvents\""));
  const size_t close = object.rfind(']');
  const std::string array = object.substr(open, close - open + 1);
  model::RankProfile reference;
  ASSERT_TRUE(formats::ParseKinetoTrace(object, "object", &reference).ok());
  for (size_t chunk : {size_t{64}, size_t{4096}, size_t{1} << 20}) {
    for (unsigned threads : {1u, 3u}) {
      SCOPED_TRACE(fmt::format("chunk {} threads {}", chunk, threads));
      formats::trace::ScanOptions options;
      options.chunk_bytes = chunk;
      options.threads = threads;
      model::RankProfile p;
      ASSERT_TRUE(formats::ParseKinetoTrace(array, "array", &p, options).ok());
      EXPECT_TRUE(p.warnings.empty());
      EXPECT_EQ(p.ledgers.back().rows_read(), reference.ledgers.back().rows_read());
      EXPECT_EQ(p.ledgers.back().rows_used(), reference.ledgers.back().rows_used());
      ASSERT_EQ(p.device_events.size(), 3u);
      EXPECT_EQ(p.device_events.start_ns, reference.device_events.start_ns);
      EXPECT_EQ(p.device_events.kind, reference.device_events.kind);
      EXPECT_EQ(p.timeline.host_ops.size(), reference.timeline.host_ops.size());
      ASSERT_NE(p.device_events.launcher[0], model::kNoIndex);
      EXPECT_EQ(p.device_events.step[0], 7);

      // No closing ']' (the format allows it): all 11 events, one warning.
      model::RankProfile open_array;
      const std::string unclosed = array.substr(0, array.rfind(']'));
      ASSERT_TRUE(formats::ParseKinetoTrace(unclosed, "open.json", &open_array, options).ok());
      EXPECT_EQ(open_array.ledgers.back().rows_read(), reference.ledgers.back().rows_read());
      EXPECT_EQ(open_array.device_events.size(), 3u);
      ASSERT_EQ(open_array.warnings.size(), 1u);
      EXPECT_NE(open_array.warnings[0].find("truncated"), std::string::npos)
          << open_array.warnings[0];
    }
  }
  // Cut mid-event: the events before it, as for an object document.
  model::RankProfile cut;
  const std::string truncated = array.substr(0, array.find("\"cat\": \"gpu_memcpy\""));
  ASSERT_TRUE(formats::ParseKinetoTrace(truncated, "cut.json", &cut).ok());
  EXPECT_EQ(cut.device_events.size(), 2u);
  ASSERT_EQ(cut.warnings.size(), 1u);
  EXPECT_NE(cut.warnings[0].find("truncated mid-event"), std::string::npos) << cut.warnings[0];
}

// trace_view.json: top-level array, string ts, flow id > 2^53, process names
// declared after the events.
const char* kTraceView = R"J([
{"name": "ProfilerStep#50", "pid": 77, "tid": 77, "ts": "1736408883700000.000", "dur": 1000.0, "ph": "X", "cat": "cpu_op", "args": {}},
{"name": "aten::add", "pid": 77, "tid": 77, "ts": "1736408883700010.500", "dur": 5.25, "ph": "X", "cat": "cpu_op", "args": {}},
{"ph": "s", "bp": "e", "name": "torch_to_npu", "id": 1736408883700059821, "pid": 77, "tid": 77, "ts": "1736408883700010.500", "cat": "async_npu"},
{"name": "Add", "pid": 512, "tid": 2, "ts": "1736408883700059.821", "dur": 3.5, "ph": "X", "args": {"Task Type": "AI_CORE"}},
{"ph": "f", "bp": "e", "name": "torch_to_npu", "id": 1736408883700059821, "pid": 512, "tid": 2, "ts": "1736408883700059.821", "cat": "async_npu"},
{"name": "EVENT_WAIT", "pid": 512, "tid": 2, "ts": "1736408883700070.000", "dur": 1.0, "ph": "X", "args": {"Task Type": "EVENT_WAIT_SQE"}},
{"name": "hcom_allReduce__586_0_1", "pid": 576, "tid": 0, "ts": "1736408883700061.000", "dur": 10.0, "ph": "X", "args": {}},
{"name": "Notify_Record", "pid": 576, "tid": 1, "ts": "1736408883700062.000", "dur": 1.0, "ph": "X", "args": {}},
{"name": "Computing", "pid": 832, "tid": 0, "ts": "1736408883700059.821", "dur": 3.5, "ph": "X"},
{"name": "process_name", "pid": 77, "tid": 0, "ph": "M", "args": {"name": "Python"}},
{"name": "process_name", "pid": 512, "tid": 0, "ph": "M", "args": {"name": "Ascend Hardware"}},
{"name": "process_labels", "pid": 512, "tid": 0, "ph": "M", "args": {"labels": "NPU 4"}},
{"name": "process_name", "pid": 576, "tid": 0, "ph": "M", "args": {"name": "HCCL"}},
{"name": "thread_name", "pid": 576, "tid": 0, "ph": "M", "args": {"name": "Group 0 Communication"}},
{"name": "thread_name", "pid": 576, "tid": 1, "ph": "M", "args": {"name": "Plane 0"}},
{"name": "process_name", "pid": 832, "tid": 0, "ph": "M", "args": {"name": "Overlap Analysis"}}
])J";

TEST(TraceViewReader, RoutesByProcessName) {
  model::RankProfile p;
  ASSERT_TRUE(formats::ParseTraceView(kTraceView, "trace_view.json", &p).ok());
  const model::Timeline& tl = p.timeline;
  // The EVENT_WAIT task is not a device event: a skipped row with its reason.
  ASSERT_EQ(p.device_events.size(), 2u);
  EXPECT_EQ(p.device_events.start_ns[0], 1736408883700059821);
  EXPECT_EQ(p.device_events.kind[0], model::ActivityKind::kCompute);
  EXPECT_EQ(p.device_events.device[0], 4);
  EXPECT_EQ(p.device_events.kind[1], model::ActivityKind::kCommunication);
  EXPECT_EQ(p.ledgers.back().skipped_by_reason().at("device task that is not a kernel"), 1);
  ASSERT_NE(p.device_events.launcher[0], model::kNoIndex);
  EXPECT_EQ(p.strings.Get(tl.host_ops.name[static_cast<size_t>(p.device_events.launcher[0])]),
            "aten::add");
  EXPECT_EQ(p.device_events.step[0], 50);
  ASSERT_EQ(tl.overlap.size(), 1u);
  EXPECT_EQ(tl.flows[0].id, 1736408883700059821);
  EXPECT_EQ(p.device_events_source, model::DeviceEventsSource::kTrace);
}

// HCCL's op-level event records its message (count elements of data_type)
// and, in newer CANN, its group's size: the model keeps them per op name,
// as the .db reader does from COMMUNICATION_OP. Plane tasks record none.
TEST(TraceViewReader, HcclOpArgsAreTheMessage) {
  constexpr const char* kJson = R"J([
{"name": "hcom_allReduce__586_0_1", "pid": 576, "tid": 0, "ts": "1736408883732241.564", "dur": 79089.52, "ph": "X", "args": {"connection_id": 1175, "model id": 4294967295, "data_type": "FP32", "alg_type": "MESH-RING", "count": 4097000}},
{"name": "hcom_allGather__586_1_1", "pid": 576, "tid": 0, "ts": "1736408883832241.564", "dur": 10.0, "ph": "X", "args": {"data_type": "BFP16", "count": 1024, "rank_size": 16}},
{"name": "Memcpy", "pid": 576, "tid": 1, "ts": "1736408883732242.000", "dur": 1.0, "ph": "X", "args": {"size(Byte)": 2064384, "data type": "FP32"}},
{"name": "process_name", "pid": 576, "tid": 0, "ph": "M", "args": {"name": "Communication"}},
{"name": "thread_name", "pid": 576, "tid": 0, "ph": "M", "args": {"name": "Group 17522688603477080586 Communication"}},
{"name": "thread_name", "pid": 576, "tid": 1, "ph": "M", "args": {"name": "Plane 0"}}
])J";
  model::RankProfile p;
  ASSERT_TRUE(formats::ParseTraceView(kJson, "trace_view.json", &p).ok());
  ASSERT_EQ(p.device_events.size(), 2u);
  const std::vector<model::CommOpMessage>& m = p.communication.messages;
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].name, "hcom_allReduce__586_0_1");
  EXPECT_EQ(m[0].data_type, "FP32");
  EXPECT_EQ(m[0].count, 4097000);
  EXPECT_EQ(m[0].rank_size, -1);
  EXPECT_EQ(m[1].data_type, "BFP16");
  EXPECT_EQ(m[1].count, 1024);
  EXPECT_EQ(m[1].rank_size, 16);
}

TEST(TraceViewReader, TruncatedArrayKeepsPrefix) {
  std::string json(kTraceView);
  json.resize(json.find("{\"name\": \"EVENT_WAIT\"") + 30);
  model::RankProfile p;
  ASSERT_TRUE(formats::ParseTraceView(json, "tv.json", &p).ok());
  EXPECT_EQ(p.ledgers.back().rows_read(), 5);
  ASSERT_EQ(p.warnings.size(), 1u);
}

// Throughput on a synthetic current-schema trace (numbers printed, not
// asserted: Debug+sanitizer builds are slow).
TEST(KinetoReader, SyntheticThroughput) {
  std::string json = "{\"traceEvents\": [\n";
  const int kEvents = 20000;
  for (int i = 0; i < kEvents; ++i) {
    json +=
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100, "
        "\"tid\": 100, \"ts\": " +
        std::to_string(1000 + i * 10) +
        ".125, \"dur\": 3.500, \"args\": {\"External id\": " + std::to_string(i) +
        ", \"cbid\": 211, \"correlation\": " + std::to_string(i) + "}},\n";
    json +=
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void "
        "at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int, "
        "float)\", \"pid\": 0, \"tid\": 7, \"ts\": " +
        std::to_string(1005 + i * 10) +
        ".250, \"dur\": 2.125, \"args\": {\"External id\": " + std::to_string(i) +
        ", \"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": " +
        std::to_string(i) +
        ", \"registers per thread\": 16, \"shared memory\": 0, \"grid\": [1, 1, 1], \"block\": "
        "[128, 1, 1]}}" +
        (i + 1 < kEvents ? ",\n" : "\n");
  }
  json += "]}";
  model::RankProfile p;
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(formats::ParseKinetoTrace(json, "synthetic", &p).ok());
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(p.device_events.size(), static_cast<size_t>(kEvents));
  std::printf("synthetic: %.1f MB in %.3f s = %.0f MB/s, %.0f events/s\n", json.size() / 1e6, s,
              json.size() / 1e6 / s, 2 * kEvents / s);
}

// torch_npu's trace_view.json and older Kineto traces give each operator its
// Python stack as a "Call stack" argument, innermost frame first: the first
// frame of user code is the source line.
TEST(CallStack, TheInnermostUserFrameIsTheSource) {
  using formats::trace::UserFrameOf;
  EXPECT_EQ(UserFrameOf("/usr/lib/python3.9/site-packages/torch/_ops.py(692): __call__;\r\n"
                        "/usr/lib/python3.9/site-packages/torch/utils/data/dataloader.py(626): "
                        "__next__;\r\n/home/me/imagenet/main.py(345): train;\r\n"
                        "/home/me/imagenet/main.py(160): main_worker"),
            "/home/me/imagenet/main.py(345): train");
  EXPECT_EQ(UserFrameOf("model.py(12): forward;train.py(40): step"), "model.py(12): forward");
  // Only the framework's and the interpreter's frames: no source.
  EXPECT_EQ(UserFrameOf("/opt/conda/lib/python3.10/threading.py(1016): run;"
                        "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py(1501)"),
            "");
  EXPECT_EQ(UserFrameOf(""), "");
}

// Every user frame is kept, innermost first, one per line: ops called from
// different lines of one function find the frames above it they share.
TEST(CallStack, UserFramesKeepsEveryUserFrameInOrder) {
  using formats::trace::UserFramesOf;
  EXPECT_EQ(UserFramesOf("/usr/lib/python3.9/site-packages/torch/_ops.py(692): __call__;\r\n"
                         "model/qwen3_5.py(29): rms_norm;\r\nmodel/qwen3_5.py(80): forward;\r\n"
                         "/usr/lib/python3.9/threading.py(1016): run;\r\ntrain.py(40): step"),
            "model/qwen3_5.py(29): rms_norm\nmodel/qwen3_5.py(80): forward\ntrain.py(40): step");
  EXPECT_EQ(
      UserFramesOf("/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py(1501)"), "");
}

}  // namespace
}  // namespace trainscope
