// Parallel layouts planted by synth (--tp, --pp, --ep, --ddp) and read back
// through the files: each layout gets the findings of its own communication
// and the remedies of its own framework and platform, never another
// layout's (PP / EP / TP / DP jobs).
// Synth plants the schedules (a GPipe pipeline, row-parallel all-reduces,
// MoE all-to-all, DDP buckets); it shares no threshold with the detectors,
// so the findings below come from the measured timelines.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/common/collective_groups.h"
#include "analysis/common/family_rules.h"
#include "analysis/job/rank_analysis.h"
#include "finding_lookup.h"
#include "synth/synth.h"
#include "synth_job.h"

namespace trainscope::analysis {
namespace {

using testing::EvidenceValue;
using testing::FindingWithId;

struct Layout {
  int ranks = 4, tp = 1, pp = 1, ep = 1;
  bool ddp = false;
  int micro_batches = 2;
};

JobAnalysis AnalyseLayout(const Layout& layout, const std::string& tag) {
  synth::SynthOptions o;
  o.ranks = layout.ranks;
  o.layers = 4;
  o.steps = 2;
  o.micro_batches = layout.micro_batches;
  o.tp = layout.tp;
  o.pp = layout.pp;
  o.ep = layout.ep;
  o.ddp = layout.ddp;
  o = synth::AllFused(o);  // only the layout's own communication is left to find
  std::string dir;
  auto profiles = testing::LoadSynthJob(o, tag, 2, &dir);
  EXPECT_TRUE(profiles.ok()) << profiles.status().message();
  if (!profiles.ok()) return {};
  auto rules = FamilyRules::Merge({}, FamilyRules::Builtin());
  auto job = AnalyzeJob(profiles->profiles, rules, AnalysisOptions{}, 2);
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(job.ok()) << job.status().message();
  return job.ok() ? std::move(*job) : JobAnalysis{};
}

// No remedy of the job recommends FSDP prefetching or a GPU switch: the
// jobs are Megatron-style layouts on Ascend.
void ExpectNoForeignAdvice(const JobAnalysis& job) {
  for (const Finding& f : job.findings) {
    EXPECT_EQ(f.remedy.find("FSDP"), std::string::npos) << f.id << ": " << f.remedy;
    EXPECT_EQ(f.remedy.find("NCCL"), std::string::npos) << f.id << ": " << f.remedy;
    EXPECT_EQ(f.remedy.find("CUDA"), std::string::npos) << f.id << ": " << f.remedy;
  }
}

TEST(SynthLayoutsTest, PipelineJobHasPipelineFindingsNotFsdpAdvice) {
  const JobAnalysis job = AnalyseLayout({.ranks = 4, .pp = 2, .micro_batches = 4}, "layout-pp");
  const Finding* bubble = FindingWithId(job, "pipeline-bubble");
  ASSERT_NE(bubble, nullptr);
  // GPipe with 2 stages and 4 micro-batches idles (S-1)/(M+S-1) = 20% of
  // the step in the fill and drain, more with unequal stages; above the
  // normal band and far below the whole step.
  EXPECT_GT(EvidenceValue(*bubble, "exposed_p2p_pct"), 10.0);
  EXPECT_LT(EvidenceValue(*bubble, "exposed_p2p_pct"), 60.0);
  EXPECT_NE(bubble->remedy.find("--num-layers-per-virtual-pipeline-stage"), std::string::npos);
  EXPECT_NE(bubble->remedy.find("MindSpeed"), std::string::npos);
  // The last stage also computes the loss: it is the slow stage, ranks 2
  // and 3 in Megatron's rank order (rank = tp_rank + tp * (dp_rank + dp * stage)).
  const Finding* imbalance = FindingWithId(job, "stage-imbalance");
  ASSERT_NE(imbalance, nullptr);
  EXPECT_EQ(imbalance->ranks, (std::vector<int32_t>{2, 3}));
  // Send/receive waits are the schedule's, not a slow rank's.
  EXPECT_EQ(FindingWithId(job, "straggler-rank"), nullptr);
  const Finding* exposed = FindingWithId(job, "exposed-communication");
  if (exposed != nullptr) {
    EXPECT_EQ(exposed->variant.find("moe"), std::string::npos);
  }
  ExpectNoForeignAdvice(job);
}

TEST(SynthLayoutsTest, TensorParallelJobGetsSequenceParallelRemedies) {
  const JobAnalysis job = AnalyseLayout({.ranks = 4, .tp = 4}, "layout-tp");
  const Finding* exposed = FindingWithId(job, "exposed-communication");
  ASSERT_NE(exposed, nullptr);
  EXPECT_NE(exposed->variant.find("tp"), std::string::npos) << exposed->variant;
  EXPECT_EQ(exposed->ranks.size(), 4u);
  // Nearly all of the exposed time is the tensor-parallel all-reduces.
  EXPECT_GT(EvidenceValue(*exposed, "exposed_tensor_parallel_ms"),
            0.9 * EvidenceValue(*exposed, "exposed_communication_ms"));
  EXPECT_NE(exposed->remedy.find("--sequence-parallel"), std::string::npos);
  EXPECT_NE(exposed->remedy.find("--use-ascend-mc2"), std::string::npos);
  EXPECT_EQ(FindingWithId(job, "pipeline-bubble"), nullptr);
  EXPECT_EQ(FindingWithId(job, "straggler-rank"), nullptr);
  ExpectNoForeignAdvice(job);
}

TEST(SynthLayoutsTest, ExpertParallelJobGetsMoeDispatchRemedies) {
  const JobAnalysis job = AnalyseLayout({.ranks = 4, .ep = 4}, "layout-ep");
  const Finding* exposed = FindingWithId(job, "exposed-communication");
  ASSERT_NE(exposed, nullptr);
  EXPECT_NE(exposed->variant.find("moe"), std::string::npos) << exposed->variant;
  EXPECT_GT(EvidenceValue(*exposed, "exposed_all_to_all_ms"),
            0.5 * EvidenceValue(*exposed, "exposed_communication_ms"));
  EXPECT_NE(exposed->remedy.find("MindSpeed"), std::string::npos);
  EXPECT_EQ(FindingWithId(job, "pipeline-bubble"), nullptr);
  ExpectNoForeignAdvice(job);
}

TEST(SynthLayoutsTest, DataParallelBucketsBehindBackwardAreClean) {
  // DDP's gradient buckets all-reduce behind the next layer's backward: no
  // exposed communication, no FSDP pseudo-overlap, no straggler.
  const JobAnalysis job = AnalyseLayout({.ranks = 4, .ddp = true}, "layout-ddp");
  for (const char* id : {"exposed-communication", "pseudo-overlap", "straggler-rank",
                         "pipeline-bubble", "stage-imbalance"}) {
    EXPECT_EQ(FindingWithId(job, id), nullptr) << id;
  }
}

TEST(SynthLayoutsTest, MixedTensorAndPipelineLayout) {
  const JobAnalysis job =
      AnalyseLayout({.ranks = 8, .tp = 2, .pp = 2, .micro_batches = 4}, "layout-tp-pp");
  EXPECT_NE(FindingWithId(job, "pipeline-bubble"), nullptr);
  EXPECT_EQ(FindingWithId(job, "straggler-rank"), nullptr);
  ExpectNoForeignAdvice(job);
}

TEST(CollectiveGroupsTest, HashMatchesHcclOnRealNames) {
  // From the Qwen3 4-rank corpus job (ascend-formats §2.12): group
  // group_name_19 ("pp") hashes to 3985310405473756128, and its ops are
  // named hcom_batchSendRecv__128_<i>_1.
  EXPECT_EQ(HcclGroupHash("group_name_19"), 3985310405473756128ULL);
  model::CaptureInfo info;
  info.parallel_groups.push_back({"group_name_19", "pp", 0, {0, 2}});
  info.parallel_groups.push_back({"group_name_5", "dp_cp", 0, {0, 1}});
  const CollectiveGroups groups(info);
  EXPECT_EQ(groups.KindOf("hcom_batchSendRecv__128_3_1"), "pp");
  EXPECT_EQ(groups.KindOf("hcom_reduceScatter__097_4_1"), "dp_cp");
  EXPECT_EQ(groups.KindOf("hcom_allReduce__612_4_1"), "");  // default group: not listed
  EXPECT_EQ(groups.KindOf("allreduce"), "");
  EXPECT_EQ(groups.KindOf("hcom_allReduce__12x_1_1"), "");
}

TEST(CollectiveGroupsTest, SharedSuffixIsAmbiguous) {
  // Two groups whose hashes end in the same three digits cannot be told
  // apart by the op name: neither is claimed.
  model::CaptureInfo info;
  std::string a, b;
  for (int i = 0; a.empty() || b.empty(); ++i) {
    const std::string name = "g" + std::to_string(i);
    const std::string hash = std::to_string(HcclGroupHash(name));
    if (hash.substr(hash.size() - 3) != "128") continue;
    (a.empty() ? a : b) = name;
  }
  info.parallel_groups.push_back({a, "tp", 0, {0, 1}});
  info.parallel_groups.push_back({b, "dp", 0, {0, 2}});
  EXPECT_EQ(CollectiveGroups(info).KindOf("hcom_allReduce__128_1_1"), "");
}

}  // namespace
}  // namespace trainscope::analysis
