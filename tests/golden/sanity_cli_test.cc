// Through the real binary: captures without device activity say so
// and what to turn on (item 7); memcpy and memset are counted apart from
// kernels (item 8); the portrait ends with a combined projection (item 3).
// Inputs: the hand-made traces of tests/golden/cases/.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "analysis/common/gain_projection.h"
#include "golden/cli_test_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

std::string Case(const std::string& format, const std::string& name) {
  return SourceDir() + "/tests/golden/cases/" + format + "/" + name + "/input";
}

bool Has(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// `analyze INPUT --json -` on one thread, parsed; |parser| owns the
// document. nullopt (and a test failure) when the run fails or its document
// does not parse.
std::optional<simdjson::dom::element> AnalyzeJson(const std::string& input,
                                                  simdjson::dom::parser& parser) {
  const CommandResult json = RunTrainscope({"analyze", input, "--json", "-", "--threads", "1"});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  simdjson::dom::element doc;
  const bool parsed = parser.parse(json.out).get(doc) == simdjson::SUCCESS;
  EXPECT_TRUE(parsed) << json.out;
  if (json.exit_code != 0 || !parsed) return std::nullopt;
  return doc;
}

TEST(SanityCli, CpuOnlyRankIsNamedWithWhatToTurnOn) {
  const std::string input = Case("kineto", "cpu_only_rank");
  const CommandResult text = RunTrainscope({"analyze", input, "--no-color", "--threads", "1"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(Has(text.out, "No device activity on rank 1: the capture has no GPU/NPU kernels"))
      << text.out;
  EXPECT_TRUE(Has(text.out, "ProfilerActivity.CUDA")) << text.out;
  EXPECT_TRUE(Has(text.out, "ProfilerActivity.NPU")) << text.out;

  simdjson::dom::parser parser;
  const auto parsed = AnalyzeJson(input, parser);
  ASSERT_TRUE(parsed.has_value());
  const simdjson::dom::element doc = *parsed;
  simdjson::dom::array ranks;
  ASSERT_EQ(doc["no_device_activity"]["ranks"].get(ranks), simdjson::SUCCESS);
  ASSERT_EQ(ranks.size(), 1u);
  EXPECT_EQ(int64_t(ranks.at(0)), 1);
  std::string_view message, remedy;
  ASSERT_EQ(doc["no_device_activity"]["message"].get(message), simdjson::SUCCESS);
  ASSERT_EQ(doc["no_device_activity"]["remedy"].get(remedy), simdjson::SUCCESS);
  EXPECT_TRUE(Has(message, "no GPU/NPU kernels")) << message;
  EXPECT_TRUE(Has(remedy, "ProfilerActivity.CUDA")) << remedy;
  EXPECT_TRUE(Has(remedy, "ProfilerActivity.NPU")) << remedy;
  EXPECT_TRUE(Has(remedy, "profiler_level")) << remedy;
  // The rank's step reason agrees: it has ProfilerStep windows, but nothing
  // ran on the device in them (not "no ProfilerStep schedule").
  std::string_view reason;
  ASSERT_EQ(doc["ranks"].at(1)["selected_step_reason"].get(reason), simdjson::SUCCESS);
  EXPECT_TRUE(Has(reason, "no device activity in the capture")) << reason;
  EXPECT_FALSE(Has(reason, "no ProfilerStep schedule")) << reason;
}

TEST(SanityCli, StepTimesWithoutAKernelListAreStillDeviceActivity) {
  // Only step_trace_time.csv: the profiler measured computing and
  // communication on the device; the kernel list is missing, not empty, so
  // this is not a capture without device activity.
  const std::string input = Case("ascend_text", "step_trace_only");
  simdjson::dom::parser parser;
  const auto parsed = AnalyzeJson(input, parser);
  ASSERT_TRUE(parsed.has_value());
  const simdjson::dom::element doc = *parsed;
  EXPECT_TRUE(doc["no_device_activity"].is_null());
  const CommandResult text = RunTrainscope({"analyze", input, "--no-color", "--threads", "1"});
  EXPECT_FALSE(Has(text.out, "No device activity")) << text.out;
}

TEST(SanityCli, ATraceWithDeviceActivityHasNoSuchNote) {
  simdjson::dom::parser parser;
  const auto parsed = AnalyzeJson(Case("kineto", "minimal_trace"), parser);
  ASSERT_TRUE(parsed.has_value());
  const simdjson::dom::element doc = *parsed;
  EXPECT_TRUE(doc["no_device_activity"].is_null());
}

TEST(SanityCli, MemcpyAndMemsetAreCountedApartFromKernels) {
  // The step: a GEMM, an add and an NCCL all-reduce (3 kernels), an HtoD
  // copy (30 us), a DtoH copy (60 us) and a memset (5 us).
  const std::string input = Case("kineto", "copies_and_memsets");
  simdjson::dom::parser parser;
  const auto parsed = AnalyzeJson(input, parser);
  ASSERT_TRUE(parsed.has_value());
  const simdjson::dom::element doc = *parsed;
  simdjson::dom::element k;
  ASSERT_EQ(doc["ranks"].at(0)["steps"].at(0)["kernels"].get(k), simdjson::SUCCESS);
  EXPECT_EQ(int64_t(k["count"]), 3);
  EXPECT_EQ(int64_t(k["compute_count"]), 2);
  EXPECT_EQ(int64_t(k["communication_count"]), 1);
  EXPECT_EQ(int64_t(k["memcpy_count"]), 2);
  EXPECT_EQ(int64_t(k["memset_count"]), 1);
  EXPECT_DOUBLE_EQ(double(k["memcpy_time_us"]), 30.0 + 60.0);
  EXPECT_DOUBLE_EQ(double(k["memset_time_us"]), 5.0);
  // Kernel statistics are of the kernels: 300 + 40 + 200 us.
  EXPECT_DOUBLE_EQ(double(k["total_time_us"]), 540.0);
  EXPECT_DOUBLE_EQ(double(k["max_us"]), 300.0);
  // The memory family still shows the copies and the memset.
  simdjson::dom::array families;
  ASSERT_EQ(doc["ranks"].at(0)["steps"].at(0)["families"].get(families), simdjson::SUCCESS);
  int64_t memory = -1;
  for (simdjson::dom::element f : families) {
    if (std::string_view(f["name"]) == "memory") memory = int64_t(f["count"]);
  }
  EXPECT_EQ(memory, 3);

  const CommandResult text = RunTrainscope({"analyze", input, "--no-color", "--threads", "1"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(Has(text.out, "kernels     3 (2 compute, 1 communication)")) << text.out;
  EXPECT_TRUE(Has(text.out, "copies      2 memcpy (90.0 µs), 1 memset (5.00 µs)")) << text.out;
}

TEST(SanityCli, KernelDetailsDoNotRecordCopies) {
  // kernel_details.csv lists kernels only: its copies are unknown, not 0.
  simdjson::dom::parser parser;
  const auto parsed = AnalyzeJson(Case("ascend_text", "current_rank"), parser);
  ASSERT_TRUE(parsed.has_value());
  const simdjson::dom::element doc = *parsed;
  simdjson::dom::element k;
  ASSERT_EQ(doc["ranks"].at(0)["steps"].at(0)["kernels"].get(k), simdjson::SUCCESS);
  EXPECT_TRUE(k["memcpy_count"].is_null());
  EXPECT_TRUE(k["memset_count"].is_null());
  EXPECT_TRUE(k["memcpy_time_us"].is_null());
}

TEST(SanityCli, ProjectionAppliesEveryFindingOnce) {
  const std::string input = Case("kineto", "item_sync_each_step");
  simdjson::dom::parser parser;
  const auto parsed = AnalyzeJson(input, parser);
  ASSERT_TRUE(parsed.has_value());
  const simdjson::dom::element doc = *parsed;
  // host-bound and host-sync share a group (device idle, counted once);
  // dominant-operator is another.
  std::map<std::string, double> largest;
  simdjson::dom::array findings;
  ASSERT_EQ(doc["findings"].get(findings), simdjson::SUCCESS);
  ASSERT_EQ(findings.size(), 3u);
  for (simdjson::dom::element f : findings) {
    const std::string id{std::string_view(f["id"])};
    double& g = largest[std::string(analysis::GainGroup(id))];
    g = std::max(g, double(f["estimated_gain_pct"]));
  }
  ASSERT_EQ(largest.size(), 2u);
  double remaining = 1.0;
  for (const auto& [group, gain] : largest) remaining *= 1.0 - gain / 100;
  const double step_us = double(doc["projection"]["step_time_us"]);
  // Step 3 (the median iteration of steps 2-3), its start to its host end.
  EXPECT_NEAR(step_us, 7090.0, 1.0);
  EXPECT_NEAR(double(doc["projection"]["combined_gain_pct"]), 100 * (1 - remaining), 0.01);
  // The gains in the JSON are rounded to 0.01%: 0.7 us of a 7090 us step.
  const double projected_us = double(doc["projection"]["projected_step_time_us"]);
  EXPECT_NEAR(projected_us, step_us * remaining, 0.75);
  EXPECT_EQ(int64_t(doc["projection"]["groups"]), 2);

  const CommandResult text = RunTrainscope({"analyze", input, "--no-color", "--threads", "1"});
  char line[128];
  std::snprintf(line, sizeof line, "All findings applied: -%.1f%%: step %.2f ms -> %.2f ms",
                double(doc["projection"]["combined_gain_pct"]), step_us / 1e3, projected_us / 1e3);
  EXPECT_TRUE(Has(text.out, line)) << line << "\n" << text.out;

  const std::string html_path = MakeTempDir("sanity_html") + "/report.html";
  const CommandResult html =
      RunTrainscope({"analyze", input, "--html", html_path, "--threads", "1"});
  ASSERT_EQ(html.exit_code, 0) << html.err;
  const std::string page = ReadFileBytes(html_path);
  std::snprintf(line, sizeof line, "<b>All findings applied:</b> -%.1f%%, step %.2f ms → %.2f ms",
                double(doc["projection"]["combined_gain_pct"]), step_us / 1e3, projected_us / 1e3);
  EXPECT_TRUE(Has(page, line)) << line;
}

// The per-shape operator efficiency of the focus rank in the HTML
// report (the text golden kineto/matmul_shapes shows the terminal rows);
// numbers by hand in that case's comments. A launching host op's name is
// profile text: escaped like every other.
TEST(SanityCli, OperatorEfficiencyTableIsInTheHtmlReportEscaped) {
  std::string trace = ReadFileBytes(Case("kineto", "matmul_shapes") + "/rank0.pt.trace.json");
  const std::string evil = "aten::add<script>&";
  for (size_t at = trace.find("\"aten::add\""); at != std::string::npos;
       at = trace.find("\"aten::add\"", at))
    trace.replace(at + 1, 9, evil);
  const std::string dir = MakeTempDir("efficiency_html");
  std::ofstream(dir + "/rank0.pt.trace.json", std::ios::binary) << trace;
  const std::string html_path = dir + "/report.html";
  const CommandResult html = RunTrainscope(
      {"analyze", dir + "/rank0.pt.trace.json", "--html", html_path, "--threads", "1"});
  ASSERT_EQ(html.exit_code, 0) << html.err;
  const std::string page = ReadFileBytes(html_path);
  EXPECT_TRUE(Has(page, "<section id=\"efficiency\"><h2>Operator efficiency</h2>"));
  EXPECT_TRUE(Has(page, "NVIDIA H100 SXM5 80GB"));
  EXPECT_TRUE(Has(page,
                  "<tr><td class=\"l\">aten::mm</td><td class=\"l\"><code>[[4096, 100], [100, "
                  "8192]]</code></td>"));
  EXPECT_TRUE(Has(page, "<td>67.1</td>"));   // 2·4096·100·8192 / 100 µs
  EXPECT_TRUE(Has(page, "<td>6.8%</td>"));   // of 989.5 TFLOP/s
  EXPECT_TRUE(Has(page, "<td>20%</td>"));    // of 343.6 TFLOP/s, the [4096, 2048] shape
  EXPECT_TRUE(Has(page, "<td>343.6</td>"));  // 2·4096·2048·8192 / 400 µs
  EXPECT_TRUE(Has(page, "aten::add&lt;script&gt;&amp;"));
  EXPECT_FALSE(Has(page, evil));
  // A profile without shapes has no such section.
  const std::string plain_path = dir + "/plain.html";
  ASSERT_EQ(RunTrainscope({"analyze", Case("kineto", "minimal_trace"), "--html", plain_path,
                           "--threads", "1"})
                .exit_code,
            0);
  EXPECT_FALSE(Has(ReadFileBytes(plain_path), "id=\"efficiency\""));
}

// The finding of |id| in an `analyze --json` document; an empty element
// (and a test failure) when there is none.
std::optional<simdjson::dom::element> SanityFindingOf(const simdjson::dom::element& doc,
                                                      std::string_view id) {
  simdjson::dom::array findings;
  EXPECT_EQ(doc["findings"].get(findings), simdjson::SUCCESS);
  for (simdjson::dom::element f : findings) {
    if (std::string_view(f["id"]) == id) return f;
  }
  return std::nullopt;
}

// Hand-written vLLM decode steps (kineto/vllm_graph_replay_kv_pool): each
// step replays one CUDA graph (10 kernels) and launches the sampling argmax
// eagerly after the host's 1.5 ms of scheduling; the allocator reserves 92% of
// the H100 for the KV-cache pool. Inference: the pool is no out-of-memory
// risk, and host-bound's remedy cannot be "use CUDA graphs".
TEST(SanityCli, InferenceGraphReplayGetsNoGraphRemedyAndNoOomRisk) {
  const std::string input = Case("kineto", "vllm_graph_replay_kv_pool");
  simdjson::dom::parser parser;
  const auto parsed = AnalyzeJson(input, parser);
  ASSERT_TRUE(parsed.has_value());
  const simdjson::dom::element doc = *parsed;
  const simdjson::dom::element capture = doc["ranks"].at(0)["capture"];
  EXPECT_EQ(std::string_view(capture["workload"]["kind"]), "inference");
  EXPECT_TRUE(Has(std::string_view(capture["workload"]["evidence"]), "5 CUDA/HIP graph replays"));
  EXPECT_EQ(std::string_view(capture["device"]), "NVIDIA H100 80GB HBM3");
  simdjson::dom::array withheld;
  ASSERT_EQ(doc["withheld_for_inference"].get(withheld), simdjson::SUCCESS);
  bool oom_withheld = false;
  for (simdjson::dom::element id : withheld) oom_withheld |= std::string_view(id) == "oom-risk";
  EXPECT_TRUE(oom_withheld);
  EXPECT_FALSE(SanityFindingOf(doc, "oom-risk").has_value());
  const auto host_bound = SanityFindingOf(doc, "host-bound");
  ASSERT_TRUE(host_bound.has_value());
  const std::string_view remedy((*host_bound)["remedy"]);
  EXPECT_TRUE(Has(remedy, "this run already replays 5 captured graphs")) << remedy;
  EXPECT_FALSE(Has(remedy, "reduce-overhead")) << remedy;
  EXPECT_EQ(double((*host_bound)["evidence_values"]["graph_launches"]), 5.0);

  const std::string html_path = MakeTempDir("inference_html") + "/report.html";
  const CommandResult html =
      RunTrainscope({"analyze", input, "--html", html_path, "--threads", "1"});
  ASSERT_EQ(html.exit_code, 0) << html.err;
  const std::string page = ReadFileBytes(html_path);
  EXPECT_TRUE(Has(page, "NVIDIA GPU (CUDA), NVIDIA H100 80GB HBM3</td>"));
  EXPECT_TRUE(Has(page, "5 CUDA/HIP graph replays"));
  EXPECT_TRUE(Has(page, "\">inference</td>"));
}

// Hand-written eager Hugging Face RMSNorm (kineto/eager_rmsnorm_forward_backward):
// per 4 ms step, two norms forward (8 kernels: upcast, pow, mean, add, rsqrt,
// mul, downcast, mul; 152 us of kernels, 166 us of span) and their two
// backwards (16 kernels in autograd's order, 353 us of kernels, 383 us of
// span). The what-if fuses each chain into its longest member (32 us) plus one
// launch (2 us, the median of the step's shortest kernels): 132 us saved per
// forward, 349 us per backward, 962 us per step: 24.05% of the step. The
// forward alone would be 6.6%.
TEST(SanityCli, EagerRmsNormGainCountsForwardAndBackward) {
  simdjson::dom::parser parser;
  const auto parsed = AnalyzeJson(Case("kineto", "eager_rmsnorm_forward_backward"), parser);
  ASSERT_TRUE(parsed.has_value());
  const auto rms = SanityFindingOf(*parsed, "unfused-rmsnorm");
  ASSERT_TRUE(rms.has_value());
  const simdjson::dom::element values = (*rms)["evidence_values"];
  EXPECT_EQ(double(values["instances_gpu-fwd"]), 2.0);
  EXPECT_EQ(double(values["instances_gpu-bwd"]), 2.0);
  EXPECT_EQ(double(values["kernels_per_step"]), 2.0 * 8 + 2.0 * 16);
  EXPECT_NEAR(double(values["saving_ms"]), 0.962, 0.001);
  EXPECT_NEAR(double((*rms)["estimated_gain_pct"]), 24.05, 0.01);
}

}  // namespace
}  // namespace trainscope::testing
