// Parity of the Kineto reader + breakdown with HTA / TraceLens anchors
// (docs: shared/docs/gpu-traces-and-anchors.md §5.3-5.4).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "analysis/common/family_rules.h"
#include "analysis/job/rank_analysis.h"
#include "analysis/step/breakdown.h"
#include "formats/load_profiles.h"
#include "formats/trace/kineto_reader.h"
#include "model/rank_profile.h"
#include "report/html_report.h"
#include "report/text_report.h"
#include "test_paths.h"

namespace trainscope {
namespace {

std::string FirstMatching(const std::string& dir, const std::string& prefix) {
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && name.find(".json") != std::string::npos)
      return entry.path().string();
  }
  return "";
}

double Ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

// The product's budget (BudgetOfRows, as ComputeStepBudget runs it) over the
// scope HTA and TraceLens use by default: activities with a launching host
// op (include_unlinked_kernels=False), the whole trace.
analysis::TimeBudget LinkedOnlyBudget(const model::RankProfile& profile) {
  const model::DeviceEvents& acts = profile.device_events;
  std::vector<uint32_t> linked;
  for (size_t i = 0; i < acts.size(); ++i) {
    if (acts.launcher[i] != model::kNoIndex) linked.push_back(static_cast<uint32_t>(i));
  }
  return analysis::BudgetOfRows(acts.start_ns, acts.duration_ns, acts.kind, linked);
}

TEST(KinetoCorpus, DlrmRank0MatchesHtaAndTraceLens) {
  TS_REQUIRE_CORPUS("kineto/dlrm_ddp_8rank_v100_param");
  model::RankProfile profile;
  std::string path = FirstMatching(corpus_path + "/kineto/dlrm_ddp_8rank_v100_param", "worker0_");
  ASSERT_TRUE(formats::ReadKinetoTrace(path, &profile).ok());
  EXPECT_TRUE(profile.warnings.empty());
  const analysis::TimeBudget t = LinkedOnlyBudget(profile);
  std::printf("DLRM r0: total %.4f idle %.4f compute %.4f exposed comm %.4f (ms)\n", Ms(t.total_ns),
              Ms(t.idle_ns), Ms(t.computation_ns), Ms(t.exposed_communication_ns));
  EXPECT_NEAR(Ms(t.total_ns), 13.009, 0.001);
  EXPECT_NEAR(Ms(t.idle_ns), 6.419, 0.001);
  EXPECT_NEAR(Ms(t.computation_ns), 1.034, 0.001);
  EXPECT_NEAR(Ms(t.exposed_communication_ns), 5.537, 0.001);
}

void ExpectTraceLensTimeline(const std::string& path, double computation, double exposed_memcpy,
                             double idle, double total) {
  model::RankProfile profile;
  ASSERT_TRUE(formats::ReadKinetoTrace(path, &profile).ok());
  const analysis::TimeBudget t = LinkedOnlyBudget(profile);
  std::printf("%s: computation %.5f exposed_memcpy %.5f idle %.5f total %.5f (ms)\n", path.c_str(),
              Ms(t.computation_ns), Ms(t.exposed_memcpy_ns + t.exposed_memset_ns), Ms(t.idle_ns),
              Ms(t.total_ns));
  EXPECT_NEAR(Ms(t.computation_ns + t.memset_ns), computation, 0.001);
  EXPECT_NEAR(Ms(t.exposed_memcpy_ns), exposed_memcpy, 0.00005);
  EXPECT_NEAR(Ms(t.idle_ns), idle, 0.001);
  EXPECT_NEAR(Ms(t.total_ns), total, 0.001);
}

TEST(KinetoCorpus, QwenH100MatchesTraceLensLinkedOnly) {
  TS_REQUIRE_CORPUS("kineto/tracelens_qwen1.5_0.5b_h100_vs_mi300x/h100");
  ExpectTraceLensTimeline(
      FirstMatching(corpus_path + "/kineto/tracelens_qwen1.5_0.5b_h100_vs_mi300x/h100", "Qwen"),
      31.9031, 0.00237, 2.9869, 34.8924);
}

TEST(KinetoCorpus, QwenMi300xMatchesTraceLensLinkedOnly) {
  TS_REQUIRE_CORPUS("kineto/tracelens_qwen1.5_0.5b_h100_vs_mi300x/mi300");
  ExpectTraceLensTimeline(
      FirstMatching(corpus_path + "/kineto/tracelens_qwen1.5_0.5b_h100_vs_mi300x/mi300", "Qwen"),
      29.7432, 0.00076, 3.3874, 33.1313);
}

TEST(KinetoCorpus, NcclMetadataCollectiveArgs) {
  TS_REQUIRE_CORPUS("kineto/hta_ddp_2rank_a100_rank0_nccl_metadata");
  model::RankProfile profile;
  ASSERT_TRUE(formats::ReadKinetoTrace(
                  corpus_path + "/kineto/hta_ddp_2rank_a100_rank0_nccl_metadata/nccl_data.json.gz",
                  &profile)
                  .ok());
  const model::Timeline& tl = profile.timeline;
  int nccl = 0;
  size_t longest = 0;
  int64_t longest_dur = -1;
  for (size_t i = 0; i < profile.device_events.size(); ++i) {
    if (profile.strings.Get(profile.device_events.name[i]).find("ncclKernel") ==
        std::string_view::npos)
      continue;
    ++nccl;
    EXPECT_EQ(profile.device_events.kind[i], model::ActivityKind::kCommunication);
    if (profile.device_events.duration_ns[i] > longest_dur) {
      longest_dur = profile.device_events.duration_ns[i];
      longest = i;
    }
  }
  std::printf("nccl kernels: %d (HTA after its step filter: 21)\n", nccl);
  EXPECT_GE(nccl, 21);
  ASSERT_NE(profile.device_events.collective[longest], model::kNoIndex);
  const model::CollectiveArgs& c =
      tl.collectives[static_cast<size_t>(profile.device_events.collective[longest])];
  EXPECT_EQ(profile.strings.Get(c.name), "allreduce");
  EXPECT_EQ(c.in_nelems, 2049000);
  EXPECT_EQ(c.out_nelems, 2049000);
  EXPECT_EQ(profile.strings.Get(c.pg_name), "0");
  EXPECT_EQ(profile.strings.Get(c.pg_desc), "default_pg");
  EXPECT_EQ(profile.strings.Get(c.pg_ranks), "[0, 1]");
  EXPECT_EQ(profile.rank, 0);
}

TEST(KinetoCorpus, NsResolutionLaunches) {
  TS_REQUIRE_CORPUS("kineto/hta_ddp_v100_rank0_ns_resolution");
  model::RankProfile profile;
  std::string path =
      FirstMatching(corpus_path + "/kineto/hta_ddp_v100_rank0_ns_resolution", "rank-0");
  ASSERT_TRUE(formats::ReadKinetoTrace(path, &profile).ok());
  std::printf("ns_resolution: %zu activities\n", profile.device_events.size());
  // HTA keeps only activities of traced steps and drops the last step
  // (include_last_profiler_step=False): reproduce that scope.
  const model::Timeline& tl = profile.timeline;
  ASSERT_GE(tl.steps.size(), 2u);
  int32_t last = tl.steps.back().number;
  int64_t hta_scope = 0;
  for (size_t i = 0; i < profile.device_events.size(); ++i) {
    if (profile.device_events.launcher[i] != model::kNoIndex &&
        profile.device_events.step[i] >= 0 && profile.device_events.step[i] != last) {
      ++hta_scope;
    }
  }
  std::printf("  in HTA scope (steps but the last): %lld, steps %zu\n",
              static_cast<long long>(hta_scope), tl.steps.size());
  EXPECT_EQ(hta_scope, 4876);
}

TEST(KinetoCorpus, OldSchema2021Reads) {
  TS_REQUIRE_CORPUS("kineto/kineto_tbplugin_resnet50_2021_oldschema");
  model::RankProfile profile;
  std::string path =
      FirstMatching(corpus_path + "/kineto/kineto_tbplugin_resnet50_2021_oldschema", "worker0");
  ASSERT_TRUE(formats::ReadKinetoTrace(path, &profile).ok());
  const model::Timeline& tl = profile.timeline;
  EXPECT_GT(profile.device_events.size(), 1000u);
  size_t linked = 0;
  for (int32_t l : profile.device_events.launcher.values()) linked += l != model::kNoIndex;
  EXPECT_GT(linked, profile.device_events.size() / 2);
  EXPECT_FALSE(tl.steps.empty());
  EXPECT_EQ(profile.device_events_source, model::DeviceEventsSource::kTrace);
  // Its operators carry "Call stack" arguments instead of python_function
  // events: each keeps its innermost user frame.
  // The script's forward (line 46) and backward (line 49) calls, counted
  // with Python on the trace's own JSON.
  size_t forward = 0, backward = 0;
  for (size_t i = 0; i < tl.host_ops.size(); ++i) {
    const std::string_view source = profile.strings.Get(tl.host_ops.source[i]);
    forward += source == "resnet50_profiler_api.py(46): <module>";
    backward += source == "resnet50_profiler_api.py(49): <module>";
  }
  EXPECT_EQ(forward, 6786u);
  EXPECT_EQ(backward, 1962u);
}

}  // namespace
}  // namespace trainscope

// A trace without ProfilerStep#N or a repeated annotation is analysed as one
// window; its texts say "the whole capture", never "step -1".
TEST(KinetoCorpus, StepLessTracesNeverPrintStepMinusOne) {
  TS_REQUIRE_CORPUS("kineto/tracelens_b200_vllm_moe_tp8_rank0");
  for (const char* trace : {"kineto/tracelens_b200_vllm_moe_tp8_rank0/eager_trace.json.gz",
                            "kineto/hta_critical_path_small_a100/cuda_event_sync_multi_stream/"
                            "event_sync_trace.json.gz"}) {
    auto loaded = trainscope::formats::LoadProfiles({corpus_path + "/" + trace}, 2);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    auto job = trainscope::analysis::AnalyzeJob(loaded->profiles,
                                                trainscope::analysis::FamilyRules::Builtin(),
                                                trainscope::analysis::AnalysisOptions(), 2);
    ASSERT_TRUE(job.ok()) << job.status().message();
    ASSERT_EQ(job->ranks.size(), 1u);
    EXPECT_EQ(job->ranks[0].selected_step, trainscope::model::kNoStep) << trace;
    const std::string text = trainscope::report::RenderText(*job, {});
    const std::string html = trainscope::report::RenderHtml(*job, {});
    EXPECT_EQ(text.find("step -1"), std::string::npos) << trace;
    EXPECT_EQ(html.find("step -1"), std::string::npos) << trace;
    EXPECT_NE(text.find("the whole capture"), std::string::npos) << trace;
  }
}

// The nn.Module time tree of the Qwen1.5-0.5B H100 trace, step 6. The
// numbers were computed independently with python3 on the trace: a kernel
// is inside a module when its cuda_runtime launch (same correlation) lies
// within the module's python_function event on the same thread:
// Qwen2Model_0 (the one call, 32,802.151 us) holds 1,198 kernels of
// 31,905.473 us; its Qwen2DecoderLayer_0 (1,586.298 us) 49 kernels, whose
// Qwen2RMSNorm_0 (190.273 us) 8.
TEST(KinetoCorpus, QwenH100ModuleTree) {
  const std::string trace = "kineto/tracelens_qwen1.5_0.5b_h100_vs_mi300x/h100";
  TS_REQUIRE_CORPUS(trace);
  auto loaded = trainscope::formats::LoadProfiles({corpus_path + "/" + trace}, 2);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  auto job = trainscope::analysis::AnalyzeJob(loaded->profiles,
                                              trainscope::analysis::FamilyRules::Builtin(),
                                              trainscope::analysis::AnalysisOptions(), 2);
  ASSERT_TRUE(job.ok()) << job.status().message();
  const trainscope::analysis::StepDistribution* step = job->ranks.at(0).selected();
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->step, 6);
  ASSERT_TRUE(step->module_tree.has_value());
  const auto& nodes = step->module_tree->nodes;
  ASSERT_GE(nodes.size(), 5u);
  EXPECT_EQ(nodes[0].name, "Qwen2Model_0");
  EXPECT_EQ(nodes[0].calls, 1);
  EXPECT_EQ(nodes[0].host_ns, 32'802'151);
  EXPECT_EQ(nodes[0].kernels, 1'198);
  EXPECT_EQ(nodes[0].kernel_ns, 31'905'473);
  EXPECT_EQ(nodes[3].name, "Qwen2DecoderLayer_0");
  EXPECT_EQ(nodes[3].parent, 0);
  EXPECT_EQ(nodes[3].host_ns, 1'586'298);
  EXPECT_EQ(nodes[3].kernels, 49);
  EXPECT_EQ(nodes[4].name, "Qwen2RMSNorm_0");
  EXPECT_EQ(nodes[4].parent, 3);
  EXPECT_EQ(nodes[4].kernels, 8);
  // Every kernel of the step is in one top-level module or outside.
  int64_t top = 0;
  for (const auto& node : nodes) top += node.parent < 0 ? node.kernels : 0;
  EXPECT_EQ(top + step->module_tree->outside_kernels, step->module_tree->kernels);
}
