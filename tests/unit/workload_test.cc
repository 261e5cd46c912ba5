// The workload a trace records (training, inference, unknown) and the
// training-only findings withheld for inference. Hand-written Kineto traces
// in torch.profiler's documented format, and the corpus traces.
#include "analysis/job/workload.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "analysis/common/family_rules.h"
#include "analysis/job/rank_analysis.h"
#include "finding_lookup.h"
#include "formats/load_profiles.h"
#include "report/text_report.h"
#include "test_paths.h"

namespace trainscope::analysis {
namespace {

// One ProfilerStep, one kernel, and the host events |extra| (JSON objects,
// each followed by a comma).
std::string WorkloadTrace(const std::string& extra) {
  return R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA B200"}],
  "traceEvents": [)" +
         extra + R"(
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1,
   "ts": 1000.0, "dur": 500.0},
  {"ph": "X", "cat": "kernel", "name": "at::native::vectorized_elementwise_kernel<4>",
   "pid": 0, "tid": 7, "ts": 1100.0, "dur": 50.0, "args": {"device": 0, "stream": 7}}
  ]
})";
}

JobAnalysis AnalyzeWorkloadTrace(const std::string& text) {
  const std::string path = testing::MakeTempDir("workload") + "/rank0.pt.trace.json";
  std::ofstream(path) << text;
  auto loaded = formats::LoadProfiles({path}, 1);
  EXPECT_TRUE(loaded.ok()) << loaded.status().message();
  if (!loaded.ok()) return {};
  auto job = AnalyzeJob(loaded->profiles, FamilyRules::Builtin(), AnalysisOptions{}, 1);
  EXPECT_TRUE(job.ok()) << job.status().message();
  return job.ok() ? std::move(job).value() : JobAnalysis{};
}

// A vLLM decode step: the model runner's Python frames and a CUDA graph
// replay, no backward, no optimizer.
TEST(Workload, GraphReplayAndServingFramesWithoutBackwardAreInference) {
  const JobAnalysis job = AnalyzeWorkloadTrace(WorkloadTrace(R"(
  {"ph": "X", "cat": "python_function", "name": "vllm/v1/worker/gpu_model_runner.py(1650): execute_model",
   "pid": 1, "tid": 1, "ts": 1010.0, "dur": 300.0},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1,
   "ts": 1020.0, "dur": 10.0},)"));
  ASSERT_EQ(job.ranks.size(), 1u);
  EXPECT_EQ(job.ranks[0].header.workload, "inference");
  EXPECT_NE(job.ranks[0].header.workload_evidence.find("1 CUDA/HIP graph replays"),
            std::string::npos)
      << job.ranks[0].header.workload_evidence;
  const std::string text = report::RenderText(job, report::TextReportOptions{});
  EXPECT_NE(text.find("workload:    inference ("), std::string::npos) << text;
}

// A Hugging Face model forward that writes its KV cache (DynamicCache.update
// in transformers/cache_utils.py, recorded with with_stack) and no backward
// op: a prefill or decode step of inference, with no graph replay or
// serving framework in the trace.
TEST(Workload, KvCacheFramesWithoutBackwardAreInference) {
  const JobAnalysis job = AnalyzeWorkloadTrace(WorkloadTrace(R"(
  {"ph": "X", "cat": "python_function", "name": "transformers/models/qwen2/modeling_qwen2.py(150): forward",
   "pid": 1, "tid": 1, "ts": 1010.0, "dur": 300.0},
  {"ph": "X", "cat": "python_function", "name": "transformers/cache_utils.py(398): update",
   "pid": 1, "tid": 1, "ts": 1020.0, "dur": 10.0},
  {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1,
   "ts": 1040.0, "dur": 20.0},)"));
  ASSERT_EQ(job.ranks.size(), 1u);
  EXPECT_EQ(job.ranks[0].header.workload, "inference");
  EXPECT_NE(job.ranks[0].header.workload_evidence.find("0 CUDA/HIP graph replays; 0 serving "
                                                       "framework frames (vllm/, sglang/); 1 "
                                                       "KV-cache frames"),
            std::string::npos)
      << job.ranks[0].header.workload_evidence;
}

// Autograd's backward ops (and an optimizer step) make it training; a trace
// with host ops but no sign either way stays unknown.
TEST(Workload, BackwardOpsAreTrainingAndNoSignIsUnknown) {
  const JobAnalysis training = AnalyzeWorkloadTrace(WorkloadTrace(R"(
  {"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: MulBackward0",
   "pid": 1, "tid": 2, "ts": 1200.0, "dur": 20.0},
  {"ph": "X", "cat": "user_annotation", "name": "Optimizer.step#AdamW.step", "pid": 1, "tid": 1,
   "ts": 1300.0, "dur": 20.0},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1,
   "ts": 1020.0, "dur": 10.0},)"));
  ASSERT_EQ(training.ranks.size(), 1u);
  EXPECT_EQ(training.ranks[0].header.workload, "training");
  EXPECT_NE(training.ranks[0].header.workload_evidence.find("1 backward ops"), std::string::npos)
      << training.ranks[0].header.workload_evidence;

  const JobAnalysis unknown = AnalyzeWorkloadTrace(WorkloadTrace(R"(
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1,
   "ts": 1050.0, "dur": 20.0},)"));
  ASSERT_EQ(unknown.ranks.size(), 1u);
  EXPECT_EQ(unknown.ranks[0].header.workload, "unknown");
}

// A rank whose kernels run the decomposed AdamW chain (unfused-optimizer, a
// training-only finding): reported for training, withheld and named for an
// inference job (a graph replay among its host ops).
TEST(Workload, TrainingOnlyFindingsAreWithheldForInference) {
  auto make = [](bool inference) {
    model::RankProfile p;
    p.info.cann_version = "8.3.RC1";
    int64_t t = 1'000'000;
    for (int i = 0; i < 6; ++i) {
      for (const char* type : {"Mul", "Add", "Mul", "Sqrt", "Add", "Div", "Add", "MatMulV3"}) {
        model::DeviceEvent row;
        row.step = 1;
        row.op_type = p.strings.Intern(type);
        row.name = row.op_type;
        row.stream = 2;
        row.start_ns = t;
        row.duration_ns = 10'000;
        p.device_events.Append(row);
        t += 12'000;
      }
    }
    model::HostOp op;
    op.name = p.strings.Intern(inference ? "hipGraphLaunch" : "MulBackward0");
    op.start_ns = 1'000'000;
    op.duration_ns = 1'000;
    p.timeline.host_ops.Append(op);
    std::vector<model::RankProfile> profiles;
    profiles.push_back(std::move(p));
    auto job = AnalyzeJob(profiles, FamilyRules::Builtin(), AnalysisOptions{}, 1);
    EXPECT_TRUE(job.ok()) << job.status().message();
    return job.ok() ? std::move(job).value() : JobAnalysis{};
  };
  const JobAnalysis training = make(false);
  EXPECT_NE(testing::FindingWithId(training, "unfused-optimizer"), nullptr);
  EXPECT_TRUE(training.withheld_for_inference.empty());
  const JobAnalysis inference = make(true);
  ASSERT_EQ(inference.ranks.size(), 1u);
  EXPECT_EQ(inference.ranks[0].header.workload, "inference");
  EXPECT_EQ(testing::FindingWithId(inference, "unfused-optimizer"), nullptr);
  EXPECT_EQ(inference.withheld_for_inference, std::vector<std::string>{"unfused-optimizer"});
  const std::string text = report::RenderText(inference, report::TextReportOptions{});
  EXPECT_NE(text.find("Not reported for an inference job"), std::string::npos) << text;
}

// The corpus: the vLLM B200 trace (model runner frames, no backward) is
// inference; an HTA DDP training trace is training.
TEST(Workload, CorpusVllmIsInferenceAndDdpIsTraining) {
  TS_REQUIRE_CORPUS("kineto/tracelens_b200_vllm_moe_tp8_rank0");
  auto analyze = [&](const std::string& path) {
    auto loaded = formats::LoadProfiles({corpus_path + "/" + path}, 2);
    EXPECT_TRUE(loaded.ok()) << loaded.status().message();
    if (!loaded.ok()) return std::string("load failed");
    const Workload w = DetectWorkload(loaded->profiles.at(0));
    return w.kind + ": " + w.evidence;
  };
  const std::string vllm = analyze("kineto/tracelens_b200_vllm_moe_tp8_rank0/eager_trace.json.gz");
  EXPECT_TRUE(vllm.starts_with("inference")) << vllm;
  const std::string ddp =
      analyze("kineto/hta_ddp_2rank_a100_rank0_nccl_metadata/nccl_data.json.gz");
  EXPECT_TRUE(ddp.starts_with("training")) << ddp;
}

// TraceLens' Qwen1.5-0.5B traces (one Hugging Face forward under
// inference_mode, batch 16, on an H100 and an MI300X): no graph replay, no
// serving framework, but the KV cache is updated once per decoder layer
// (24 layers) and no op runs backward.
TEST(Workload, CorpusQwenForwardWithKvCacheIsInference) {
  TS_REQUIRE_CORPUS("kineto/tracelens_qwen1.5_0.5b_h100_vs_mi300x");
  for (const char* device : {"h100", "mi300"}) {
    auto loaded =
        formats::LoadProfiles({corpus_path + "/kineto/tracelens_qwen1.5_0.5b_h100_vs_mi300x/" +
                               device + "/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"},
                              2);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    const Workload w = DetectWorkload(loaded->profiles.at(0));
    EXPECT_EQ(w.kind, "inference") << device << ": " << w.evidence;
    EXPECT_NE(w.evidence.find("0 CUDA/HIP graph replays; 0 serving framework frames"),
              std::string::npos)
        << device << ": " << w.evidence;
    EXPECT_NE(w.evidence.find("KV-cache frames"), std::string::npos) << w.evidence;
  }
}

}  // namespace
}  // namespace trainscope::analysis
