// memory-peak, oom-risk and memory-imbalance, and synth's memory
// plants: a per-stream pool offset and a peak holder, with ground truth in
// ground_truth.json ("memory"), found by memory-fragmentation and
// memory-peak; the clean twin is quiet; the fused twin's smaller peak shows
// in compare. Expected numbers come from synth's own bookkeeping (its
// simulation of the allocator, not the detectors) or are computed by hand.
#include "analysis/findings/memory_findings.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <string>
#include <vector>

#include "analysis/common/family_rules.h"
#include "analysis/compare/run_comparison.h"
#include "analysis/job/rank_analysis.h"
#include "analysis/step/memory_usage.h"
#include "finding_lookup.h"
#include "formats/ascend/memory_readers.h"
#include "report/html_report.h"
#include "synth/synth.h"
#include "synth_job.h"

namespace trainscope {
namespace {

using testing::EvidenceValue;
using testing::FindingWithId;

using analysis::Finding;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string Label(const Finding& f, const std::string& key) {
  for (const auto& [k, v] : f.text_labels) {
    if (k == key) return v;
  }
  return {};
}

struct MemoryTruth {
  int64_t offset = 0, holder_bytes = 0, peak_allocated = 0, peak_reserved = 0, pools = 0;
  std::string holder;
};

struct Side {
  analysis::JobAnalysis job;
  MemoryTruth truth;
};

Side Analyse(const synth::SynthOptions& options, const std::string& tag) {
  std::string dir;
  auto profiles = testing::LoadSynthJob(options, tag, 2, &dir);
  EXPECT_TRUE(profiles.ok()) << profiles.status().message();
  Side side;
  if (!profiles.ok()) return side;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  EXPECT_FALSE(parser.load(dir + "/ground_truth.json").get(doc));
  simdjson::dom::element m;
  EXPECT_FALSE(doc["memory"].get(m));
  EXPECT_FALSE(m["stream_pool_offset_bytes"].get(side.truth.offset));
  EXPECT_FALSE(m["stream_pools"].get(side.truth.pools));
  EXPECT_FALSE(m["peak_holder_bytes"].get(side.truth.holder_bytes));
  EXPECT_FALSE(m["peak_allocated_bytes"].get(side.truth.peak_allocated));
  EXPECT_FALSE(m["peak_reserved_bytes"].get(side.truth.peak_reserved));
  std::string_view holder;
  if (!m["peak_holder"].get(holder)) side.truth.holder = std::string(holder);
  auto rules = analysis::FamilyRules::Merge({}, analysis::FamilyRules::Builtin());
  auto job = analysis::AnalyzeJob(profiles->profiles, rules, analysis::AnalysisOptions(), 2);
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(job.ok());
  if (job.ok()) side.job = std::move(*job);
  return side;
}

synth::SynthOptions MemoryJob() {
  synth::SynthOptions o;
  o.ranks = 2;
  o.layers = 2;
  o.steps = 2;
  o.memory = true;
  return o;
}

TEST(MemorySynth, BothPlantsAreFoundWithTheirGroundTruth) {
  const Side side = Analyse(MemoryJob(), "mem-plants");
  EXPECT_EQ(side.truth.pools, 2);
  EXPECT_EQ(side.truth.offset, int64_t{5} << 29);  // 2.5 GiB, synth's unshard pool
  EXPECT_EQ(side.truth.holder, "aten::_log_softmax");

  const Finding* frag = FindingWithId(side.job, "memory-fragmentation");
  ASSERT_NE(frag, nullptr);
  EXPECT_EQ(frag->variant.rfind("streams", 0), 0u) << frag->variant;
  // At the peak the gap is the unshard pool plus the segment rounding.
  EXPECT_NEAR(EvidenceValue(*frag, "gap_min_gib"),
              static_cast<double>(side.truth.peak_reserved - side.truth.peak_allocated) / kGiB,
              1e-9);
  EXPECT_GE(EvidenceValue(*frag, "gap_min_gib") * kGiB, static_cast<double>(side.truth.offset));
  EXPECT_EQ(EvidenceValue(*frag, "stream_pools"), 2);

  const Finding* peak = FindingWithId(side.job, "memory-peak");
  ASSERT_NE(peak, nullptr);
  EXPECT_NE(peak->title.find("aten::_log_softmax"), std::string::npos) << peak->title;
  EXPECT_NEAR(EvidenceValue(*peak, "holder_gib"),
              static_cast<double>(side.truth.holder_bytes) / kGiB, 1e-9);
  EXPECT_NEAR(EvidenceValue(*peak, "peak_allocated_gib"),
              static_cast<double>(side.truth.peak_allocated) / kGiB, 1e-9);
  EXPECT_NEAR(EvidenceValue(*peak, "offload_saves_gib"), EvidenceValue(*peak, "holder_gib"), 1e-12);
  // The unfused RMSNorm's intermediates live at the peak: per layer two
  // norms of pow + mul (fp32) + cast + mul (bf16) on [8192, 2048]: 384 MiB.
  EXPECT_NEAR(EvidenceValue(*peak, "fused_saves_gib"), 2 * 2 * 6 * 8192.0 * 2048 * 2 / kGiB, 1e-9);
  // Ascend profile: the Ascend remedy (MindSpeed switches).
  EXPECT_NE(peak->remedy.find("MindSpeed"), std::string::npos) << peak->remedy;
  EXPECT_NE(peak->remedy.find("npu_rms_norm"), std::string::npos);
  // Ascend text exports name no chip: capacity unknown, no oom-risk.
  EXPECT_EQ(FindingWithId(side.job, "oom-risk"), nullptr);
  // Data-parallel twins hold the same memory.
  EXPECT_EQ(FindingWithId(side.job, "memory-imbalance"), nullptr);
  for (const analysis::RankAnalysis& rank : side.job.ranks) {
    const auto& m = rank.selected()->memory;
    ASSERT_TRUE(m.has_value());
    EXPECT_FALSE(m->capacity_bytes.has_value());
    EXPECT_FALSE(m->headroom_bytes.has_value());
    EXPECT_FALSE(m->activation_bytes.has_value());  // no host ops: phases unknown
    EXPECT_FALSE(m->curve.empty());
    EXPECT_LE(m->curve.size(), analysis::kMemoryCurvePoints);
    EXPECT_EQ(m->modules.front().component, "APP");
  }
  // The HTML: the allocator curves with the peak and its holder named, and
  // the per-rank peak bars of the job.
  const std::string html = report::RenderHtml(side.job, report::HtmlReportOptions{});
  const size_t section = html.find("<section id=\"memory\">");
  ASSERT_NE(section, std::string::npos);
  const std::string memory = html.substr(section, html.find("</section>", section) - section);
  EXPECT_NE(memory.find("aria-label=\"allocated and reserved memory over the step\""),
            std::string::npos);
  EXPECT_NE(memory.find(fmt::format("peak {:.2f} GiB: aten::_log_softmax",
                                    static_cast<double>(side.truth.peak_allocated) / kGiB)),
            std::string::npos);
  EXPECT_NE(memory.find("aria-label=\"peak memory per rank\""), std::string::npos);
  EXPECT_NE(memory.find("rank 1: peak allocated"), std::string::npos);
}

TEST(MemorySynth, TheCleanTwinIsQuietAndTheFusedPeakShowsInCompare) {
  const Side base = Analyse(MemoryJob(), "mem-base");
  const Side fused = Analyse(synth::AllFused(MemoryJob()), "mem-fused");
  EXPECT_EQ(fused.truth.pools, 1);
  EXPECT_EQ(fused.truth.offset, 0);
  EXPECT_EQ(fused.truth.holder, "");
  for (const char* id : {"memory-fragmentation", "memory-peak", "oom-risk", "memory-imbalance"}) {
    EXPECT_EQ(FindingWithId(fused.job, id), nullptr) << id;
  }
  auto c = analysis::CompareRuns(base.job, fused.job, analysis::CompareOptions{});
  ASSERT_TRUE(c.ok());
  bool seen = false;
  for (const analysis::ComparedValue& v : c->values) {
    if (v.id != "peak_allocated_gib") continue;
    seen = true;
    ASSERT_TRUE(v.base && v.next);
    EXPECT_NEAR(*v.base, static_cast<double>(base.truth.peak_allocated) / kGiB, 1e-9);
    EXPECT_NEAR(*v.next, static_cast<double>(fused.truth.peak_allocated) / kGiB, 1e-9);
    EXPECT_LT(*v.delta(), -1.0);  // GiB: the log-probabilities and the norm intermediates
  }
  EXPECT_TRUE(seen);
}

// oom-risk by Kineto's totalGlobalMem: 7.5 of 8 GiB reserved at the peak.
TEST(MemoryFindings, OomRiskFromDevicePropertiesAndNotWithoutCapacity) {
  model::RankProfile profile;
  profile.rank = 3;
  constexpr int64_t kG = int64_t{1} << 30;
  for (int i = 0; i < 3; ++i) {
    model::MemoryEvent e;
    e.ts_ns = 1000 * (i + 1);
    e.device_type = 1;
    e.total_allocated = (i + 5) * kG;
    e.total_reserved = kG * 15 / 2;
    profile.timeline.memory.push_back(e);
  }
  model::DeviceProperties d;
  d.id = 0;
  d.name = "NVIDIA H100 80GB HBM3";
  d.total_global_mem = 8 * kG;
  profile.timeline.devices.push_back(d);
  analysis::StepDistribution step;
  step.memory = analysis::ComputeMemoryUsage(profile, model::kNoStep);
  ASSERT_TRUE(step.memory.has_value());
  EXPECT_EQ(step.memory->capacity_bytes, 8 * kG);
  EXPECT_EQ(step.memory->capacity_from, "deviceProperties totalGlobalMem");
  EXPECT_EQ(step.memory->headroom_bytes, kG / 2);
  const analysis::FindingCatalog& catalog = analysis::FindingCatalog::Builtin();
  ASSERT_DOUBLE_EQ(catalog.thresholds().oom_headroom_share, 0.1);
  std::vector<Finding> found = analysis::MemoryFindings(step, profile, catalog.thresholds());
  analysis::RenderFindings(catalog, &found, model::Platform::kCuda);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].id, "oom-risk");
  EXPECT_EQ(found[0].ranks, std::vector<int32_t>{3});
  EXPECT_DOUBLE_EQ(EvidenceValue(found[0], "headroom_gib"), 0.5);
  EXPECT_DOUBLE_EQ(EvidenceValue(found[0], "headroom_pct"), 6.25);
  EXPECT_DOUBLE_EQ(EvidenceValue(found[0], "capacity_gib"), 8);
  EXPECT_DOUBLE_EQ(EvidenceValue(found[0], "peak_allocated_gib"), 7);
  EXPECT_EQ(Label(found[0], "capacity_from"), "deviceProperties totalGlobalMem");
  EXPECT_NE(found[0].remedy.find("PYTORCH_CUDA_ALLOC_CONF"), std::string::npos);
  // Without totalGlobalMem the device table's H100 row: 80 GiB, plenty left.
  profile.timeline.devices[0].total_global_mem = 0;
  step.memory = analysis::ComputeMemoryUsage(profile, model::kNoStep);
  EXPECT_EQ(step.memory->capacity_bytes, 80 * kG);
  EXPECT_EQ(step.memory->capacity_from, "device table: NVIDIA H100 SXM5");
  EXPECT_TRUE(analysis::MemoryFindings(step, profile, catalog.thresholds()).empty());
  // A device the table does not know: capacity unknown, no finding.
  profile.timeline.devices[0].name = "Ascend910B";
  step.memory = analysis::ComputeMemoryUsage(profile, model::kNoStep);
  EXPECT_FALSE(step.memory->capacity_bytes.has_value());
  EXPECT_FALSE(step.memory->headroom_bytes.has_value());
  EXPECT_TRUE(analysis::MemoryFindings(step, profile, catalog.thresholds()).empty());
}

// Activation memory: allocated at the first backward op minus at the
// window's first sample; the peak holder over operator_memory.csv.
TEST(MemoryFindings, ActivationMemoryAndPeakHolderByHand) {
  model::RankProfile profile;
  constexpr const char* kRecord =
      "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream "
      "Ptr,Device Type\n"
      "PTA,10.000\t,100.0,1000.0,100.0,7,NPU:0\n"
      "PTA,20.000\t,400.0,1000.0,400.0,7,NPU:0\n"
      "PTA,30.000\t,700.0,1000.0,700.0,7,NPU:0\n"
      "PTA,40.000\t,600.0,1000.0,600.0,7,NPU:0\n"
      "PTA,50.000\t,100.0,1000.0,100.0,7,NPU:0\n";
  constexpr const char* kOps =
      "Name,Size(KB),Allocation Time(us),Release Time(us),Duration(us),Allocation Total "
      "Allocated(MB),Allocation Total Reserved(MB),Release Total Allocated(MB),Release Total "
      "Reserved(MB),Device Type\n"
      "aten::mul,307200,20.000\t,45.000\t,25.0,400.0,1000.0,100.0,1000.0,NPU:0\n"
      "aten::mm,307200,30.000\t,40.000\t,10.0,700.0,1000.0,600.0,1000.0,NPU:0\n";
  ASSERT_TRUE(formats::ParseMemoryRecord(kRecord, "m.csv", &profile).ok());
  ASSERT_TRUE(formats::ParseOperatorMemory(kOps, "o.csv", &profile).ok());
  // The first backward op at 35 us (an evaluate_function on the autograd thread).
  model::HostOp op;
  op.name = profile.strings.Intern("autograd::engine::evaluate_function: MmBackward0");
  op.start_ns = 35'000;
  op.duration_ns = 1000;
  profile.timeline.host_ops.Append(op);
  const auto m = analysis::ComputeMemoryUsage(profile, model::kNoStep);
  ASSERT_TRUE(m.has_value());
  constexpr int64_t kM = int64_t{1} << 20;
  EXPECT_EQ(m->start_allocated_bytes, 100 * kM);
  EXPECT_EQ(m->backward_start_ns, 35'000);
  EXPECT_EQ(m->backward_allocated_bytes, 700 * kM);
  EXPECT_EQ(m->activation_bytes, 600 * kM);
  EXPECT_EQ(m->elementwise_live_at_peak_bytes, 300 * kM);  // aten::mul, not aten::mm
  analysis::StepDistribution step;
  step.memory = m;
  const analysis::FindingCatalog& catalog = analysis::FindingCatalog::Builtin();
  std::vector<Finding> found = analysis::MemoryFindings(step, profile, catalog.thresholds());
  analysis::RenderFindings(catalog, &found, model::Platform::kAscend);
  // The gap never falls below 300 of 1000 MiB: memory-fragmentation too.
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].id, "memory-fragmentation");
  const Finding& peak = found[1];
  EXPECT_EQ(peak.id, "memory-peak");
  // Two holders of 300 MiB each at the 700 MiB peak: 42.9% (ties: by name).
  EXPECT_EQ(Label(peak, "holder"), "aten::mm");
  EXPECT_NEAR(EvidenceValue(peak, "holder_pct"), 300.0 / 700 * 100, 1e-9);
  EXPECT_NEAR(EvidenceValue(peak, "live_at_peak_gib"), 600.0 / 1024, 1e-12);
  EXPECT_NEAR(EvidenceValue(peak, "recompute_saves_gib"), 600.0 / 1024, 1e-12);
  EXPECT_NEAR(EvidenceValue(peak, "fused_saves_gib"), 300.0 / 1024, 1e-12);
  EXPECT_NEAR(EvidenceValue(peak, "activation_gib"), 600.0 / 1024, 1e-12);
  EXPECT_NE(peak.remedy.find("MindSpeed"), std::string::npos);
}

// memory-imbalance: peaks 4, 5, 8 GiB: (8 - 4) / 5 = 80% of the median.
TEST(MemoryFindings, ImbalanceIsTheSpreadOverTheMedianPeak) {
  constexpr int64_t kG = int64_t{1} << 30;
  const analysis::FindingCatalog& catalog = analysis::FindingCatalog::Builtin();
  ASSERT_DOUBLE_EQ(catalog.thresholds().memory_imbalance_share, 0.2);
  std::vector<Finding> found;
  analysis::AddMemoryImbalance({{2, 8 * kG}, {0, 4 * kG}, {1, 5 * kG}}, catalog.thresholds(),
                               &found);
  analysis::RenderFindings(catalog, &found, model::Platform::kAscend);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].id, "memory-imbalance");
  EXPECT_EQ(found[0].ranks, std::vector<int32_t>{2});
  EXPECT_DOUBLE_EQ(EvidenceValue(found[0], "spread_pct"), 80);
  EXPECT_DOUBLE_EQ(EvidenceValue(found[0], "median_peak_gib"), 5);
  EXPECT_DOUBLE_EQ(EvidenceValue(found[0], "max_peak_gib"), 8);
  EXPECT_DOUBLE_EQ(EvidenceValue(found[0], "min_peak_gib"), 4);
  EXPECT_EQ(Label(found[0], "per_rank"), "rank 0 4.00 GiB, rank 1 5.00 GiB, rank 2 8.00 GiB");
  EXPECT_NE(found[0].remedy.find("--num-layer-list"), std::string::npos);
  // 19% apart: quiet; one rank: quiet.
  found.clear();
  analysis::AddMemoryImbalance({{0, 100 * kG}, {1, 119 * kG}}, catalog.thresholds(), &found);
  EXPECT_TRUE(found.empty());
  analysis::AddMemoryImbalance({{0, 100 * kG}}, catalog.thresholds(), &found);
  EXPECT_TRUE(found.empty());
}

}  // namespace
}  // namespace trainscope
