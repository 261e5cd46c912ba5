// RankResult to bytes and back (analysis/job/rank_result_io.h): real
// results round-trip so exactly that the job's reports do not change, and
// damaged bytes are refused with their offset, never a crash.
#include "analysis/job/rank_result_io.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "analysis/common/family_rules.h"
#include "analysis/job/rank_analysis.h"
#include "core/byte_reader.h"
#include "core/byte_writer.h"
#include "formats/load_profiles.h"
#include "report/json_report.h"
#include "report/text_report.h"
#include "synth/synth.h"
#include "synth_job.h"
#include "test_paths.h"

namespace trainscope::analysis {
namespace {

// Analyses every rank, then checks: each result re-serialises to the same
// bytes after a round trip, and Combine over the decoded results renders
// the same JSON and text reports as Combine over the originals.
// |motifs| counts the motifs round-tripped, so a caller can show the check
// was not vacuous.
void ExpectRoundTripKeepsTheReports(const std::vector<model::RankProfile>& profiles,
                                    size_t* motifs = nullptr) {
  const JobContext context{FamilyRules::Builtin(), AnalysisOptions{}, 2};
  std::vector<RankResult> originals;
  std::vector<RankResult> decoded;
  for (const model::RankProfile& profile : profiles) {
    auto result = AnalyzeRank(profile, context);
    ASSERT_TRUE(result.ok()) << result.status().message();
    const std::string bytes = SerializeRankResult(*result);
    auto back = DeserializeRankResult(bytes);
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(SerializeRankResult(*back), bytes);
    EXPECT_EQ(back->header.rank, result->header.rank);
    EXPECT_EQ(back->header.source, result->header.source);
    EXPECT_EQ(back->steps_info.spans_ns, result->steps_info.spans_ns);
    ASSERT_EQ(back->steps.size(), result->steps.size());
    for (size_t i = 0; i < back->steps.size(); ++i) {
      const StepDistribution& a = result->steps[i].distribution;
      const StepDistribution& b = back->steps[i].distribution;
      ASSERT_EQ(b.motifs.size(), a.motifs.size());
      if (motifs != nullptr) *motifs += b.motifs.size();
      for (size_t m = 0; m < a.motifs.size(); ++m) {
        EXPECT_EQ(b.motifs[m].instance_starts_ns, a.motifs[m].instance_starts_ns);
        EXPECT_EQ(b.motifs[m].fingerprint, a.motifs[m].fingerprint);
      }
      EXPECT_EQ(b.breakdown.has_value(), a.breakdown.has_value());
      EXPECT_EQ(back->steps[i].timeline.strings, result->steps[i].timeline.strings);
    }
    EXPECT_EQ(back->comm.ops.size(), result->comm.ops.size());
    EXPECT_EQ(back->links.links.size(), result->links.links.size());
    originals.push_back(*std::move(result));
    decoded.push_back(*std::move(back));
  }
  auto job_a = Combine(std::move(originals), context);
  auto job_b = Combine(std::move(decoded), context);
  ASSERT_TRUE(job_a.ok()) << job_a.status().message();
  ASSERT_TRUE(job_b.ok()) << job_b.status().message();
  const std::string json = report::RenderJson(*job_a, "test");
  ASSERT_FALSE(job_a->ranks.empty());
  EXPECT_EQ(report::RenderJson(*job_b, "test"), json);
  EXPECT_EQ(report::RenderText(*job_b, {}), report::RenderText(*job_a, {}));
}

TEST(RankResultIoTest, SynthJobRoundTripsToIdenticalReports) {
  synth::SynthOptions options;
  options.ranks = 2;
  options.steps = 3;
  auto loaded = testing::LoadSynthJob(options, "rank_result_io");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ASSERT_EQ(loaded->profiles.size(), 2u);
  size_t motifs = 0;
  ExpectRoundTripKeepsTheReports(loaded->profiles, &motifs);
  EXPECT_GT(motifs, 0u);
}

// The per-rank summary the MPI mode gathers has a size budget (docs/mpi.md,
// "Size budget"): at most kBudgetPerStep bytes per captured step, all of
// the rank's parts included. Measured on the demo's model shape (8 layers,
// 2 micro-batches, the methodology's fingerprints all present) and on the
// 1,024-rank benchmark's (1 layer, 1 micro-batch); the sizes are printed so
// that docs/mpi.md's table can be checked.
TEST(RankResultIoTest, ASummaryStaysWithinItsSizeBudget) {
  constexpr size_t kBudgetPerStep = 40 * 1024;
  struct Shape {
    const char* name;
    int layers, micro_batches, steps;
  };
  for (const Shape& shape : {Shape{"demo", 8, 2, 3}, Shape{"bench-1024", 1, 1, 2}}) {
    synth::SynthOptions options;
    options.ranks = 8;
    options.layers = shape.layers;
    options.micro_batches = shape.micro_batches;
    options.steps = shape.steps;
    auto loaded = testing::LoadSynthJob(options, std::string("budget-") + shape.name);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    const JobContext context{FamilyRules::Builtin(), AnalysisOptions{}, 2};
    size_t largest = 0;
    for (const model::RankProfile& profile : loaded->profiles) {
      auto result = AnalyzeRank(profile, context);
      ASSERT_TRUE(result.ok()) << result.status().message();
      const size_t bytes = SerializeRankResult(*result).size();
      const size_t steps = std::max<size_t>(1, result->steps.size());
      EXPECT_LE(bytes, kBudgetPerStep * steps) << shape.name << " rank " << result->header.rank;
      largest = std::max(largest, bytes);
    }
    std::printf("%s: largest summary %zu bytes for %d captured steps (%.1f KB per step)\n",
                shape.name, largest, shape.steps,
                static_cast<double>(largest) / shape.steps / 1024.0);
    EXPECT_GT(largest, 0u);
  }
}

TEST(RankResultIoTest, CorpusJobsRoundTripToIdenticalReports) {
  TS_REQUIRE_CORPUS("ascend/msinsight-pytorch-2rank-text-level1");
  for (const char* job :
       {"ascend/msinsight-pytorch-2rank-text-level1", "kineto/dlrm_ddp_8rank_v100_param"}) {
    SCOPED_TRACE(job);
    if (!std::filesystem::exists(corpus_path + "/" + job)) continue;
    auto loaded = formats::LoadProfiles({corpus_path + "/" + job}, 2);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    ASSERT_FALSE(loaded->profiles.empty());
    ExpectRoundTripKeepsTheReports(loaded->profiles);
  }
}

// Every struct of the tree with one item, values that stress the encoding.
RankResult MakeSample() {
  RankResult r;
  r.header.rank = 7;
  r.header.source = "/runs/a/rank_7";
  r.header.torch_npu_version = "2.7.1";
  r.header.cann_version = "8.3.RC1";
  r.header.profiler_level = "Level1";
  r.header.steps_from = "Step Id column";
  FileHealth file;
  file.file = "kernel_details.csv";
  file.rows_read = 10;
  file.rows_used = 9;
  file.rows_skipped = 1;
  file.skipped_by_reason = {{"bad-time", 1}};
  file.samples = {{12, "bad-time", "Start Time (us) is \"x\""}};
  r.header.files.push_back(file);
  r.header.missing_files = {"op_statistic.csv"};
  r.header.warnings = {"a warning"};
  r.header.inventory = {{"ASCEND_PROFILER_OUTPUT/kernel_details.csv", true, ""},
                        {"ASCEND_PROFILER_OUTPUT/data_preprocess.csv", false, "not read yet"}};
  r.header.l2_cache = L2CacheSummary{179, 2, 0.5, std::nullopt, 0.25, {{"MatMul_1", 2, 0.5}}};
  r.steps_info.rank = 7;
  r.steps_info.present = {3, 4};
  r.steps_info.spans_ns = {{3, 1'000'000}, {4, std::numeric_limits<int64_t>::max()}};
  r.own_step = {4, "median span"};
  RankStepResult step;
  step.distribution.step = 4;
  step.distribution.kernels.count = 3;
  step.distribution.kernels.p50_ns = std::numeric_limits<double>::quiet_NaN();
  step.distribution.kernels.mean_issue_interval_ns = -0.0;
  step.distribution.kernels.p99_ns = std::numeric_limits<double>::infinity();
  step.distribution.kernels.max_ns = std::numeric_limits<int64_t>::min();
  step.distribution.kernels.span_ns = std::numeric_limits<int64_t>::max();
  step.distribution.kernels.copies_known = true;
  step.distribution.kernels.memcpy_count = 2;
  step.distribution.kernels.memset_count = 1;
  step.distribution.kernels.memcpy_time_ns = 90'000;
  step.distribution.kernels.memset_time_ns = 5'000;
  step.distribution.density.bins = {{1e3, 1.2589e3, 2, 0.5}};
  step.distribution.families = {{"matmul", 2, 5'500, 0.5, 0.25}};
  step.distribution.top_operators = {{"MatMul", "matmul", 2, 5'500, 3'000, 0.25}};
  step.distribution.step_trace = StepTraceSummary{};
  step.distribution.data_loader = InputBoundStats{1, 1, 71'425'000, 56'522'000, 0, 190'204'000};
  OperatorEfficiency efficiency;
  efficiency.device = "NVIDIA H100 80GB HBM3";
  efficiency.peak_device = "NVIDIA H100 SXM5 80GB";
  efficiency.peak_gbps = 3350;
  efficiency.device_ns = 45'344'423;
  efficiency.shaped_ns = 31'903'105;
  efficiency.matmul_ns = 9'001'274;
  efficiency.shapes = 33;
  ShapeEfficiency mm;
  mm.op_type = "aten::mm";
  mm.shapes = "[[8944, 1024], [1024, 2816]]";
  mm.dtypes = "[\"c10::BFloat16\", \"c10::BFloat16\"]";
  mm.matmul = true;
  mm.count = 48;
  mm.total_ns = 4'055'252;
  mm.flops = 51'581'550'592.0;
  mm.bytes = 74'457'088.0;
  mm.bytes_include_output = true;
  mm.peak_tflops = 989.5;
  mm.yardstick_tflops = 674.5;
  mm.yardstick_shapes = "aten::mm [[8944, 2816], [2816, 1024]]";
  efficiency.rows.push_back(mm);
  step.distribution.operator_efficiency = efficiency;
  MemoryUsage memory;
  memory.window_start_ns = 1'000;
  memory.window_end_ns = 9'000;
  memory.window_from = "host step";
  memory.samples_from = "memory_record.csv";
  memory.samples = 381;
  memory.peak_allocated_bytes = 1245688832;
  memory.peak_allocated_ns = 5'000;
  memory.peak_reserved_bytes = 1522532352;
  memory.gap_at_peak_bytes = 276843520;
  memory.gap_min_bytes = 276843520;
  memory.gap_mean_bytes = 490766425;
  memory.streams = {{"897357296", 369, 123, 510196224}};
  memory.live_at_peak_bytes = 510196224;
  memory.top_holders = {{"aten::_foreach_add", 245276160, 17}};
  memory.modules = {{"APP", 1522532352}};
  memory.start_allocated_bytes = 981462016;
  memory.backward_start_ns = 4'000;
  memory.backward_allocated_bytes = 1245688832;
  memory.activation_bytes = 264226816;
  memory.capacity_bytes = int64_t{64} << 30;
  memory.capacity_from = "device table: Huawei Ascend 910B3";
  memory.headroom_bytes = (int64_t{64} << 30) - 1522532352;
  memory.curve = {{1'000, 981462016, 1522532352}, {5'000, 1245688832, std::nullopt}};
  ModuleTree modules;
  modules.nodes = {{"Qwen2Model_0", -1, 1, 90'000, 12, 60'000, {}},
                   {"Qwen2RMSNorm_0", 0, 2, 8'000, 10, 5'000, {"unfused-rmsnorm"}}};
  modules.kernels = 15;
  modules.outside_kernels = 3;
  modules.outside_ns = 7'000;
  step.distribution.module_tree = modules;
  FrameworkOps framework_ops;
  framework_ops.ops.push_back(
      FrameworkOpStat{"aten::linear",
                      "[[16, 559, 1024], [2816, 1024], []]",
                      2,
                      168,
                      168,
                      8'997'754,
                      {OwnedKernel{"sm90_xmma_gemm_bf16bf16", "sm90_xmma_gemm", 168, 8'000'000}},
                      {}});
  framework_ops.modules.push_back(
      FrameworkOpStat{"Qwen2RMSNorm", "", 0, 49, 392, 7'378'000, {}, {"unfused-rmsnorm"}});
  framework_ops.kernels = 1'500;
  framework_ops.kernel_ns = 45'346'791;
  framework_ops.owned_kernels = 1'200;
  framework_ops.owned_ns = 31'905'473;
  step.distribution.framework_ops = framework_ops;
  step.distribution.memory = memory;  // gap_max, GE/APP peaks, element-wise share unknown  //
                                      // gap_max, GE and APP peaks unknown
  step.distribution.step_trace->preparing_ns = 1'250;
  step.distribution.breakdown = StepBudget{"trace", "all", {}};
  step.distribution.breakdown->budget.idle_ns = -5;
  Motif motif;
  motif.kernels = {"A", "B"};
  motif.occurrences = 2;
  motif.fingerprint = "rmsnorm";
  motif.period_ns = 0.5;
  motif.instance_starts_ns = {500, std::numeric_limits<int64_t>::min()};
  motif.stream = 3;
  step.distribution.motifs.push_back(motif);
  step.timeline.step = 4;
  step.timeline.strings = {"MatMul", "matmul"};
  step.timeline.zooms.push_back({4000.25, 1, 1, {{500, 1'500, Lane::kOther, 0, 0, 1}}, 8000.5});
  step.timeline.longest_gaps.push_back({1, 2, "A", "B"});
  step.timeline.overview.columns = 2;
  step.timeline.overview.lanes[1].push_back({0, 2, 1, 3.5, 4});
  step.timeline.overview.free.push_back({1, 2});
  step.timeline.track.kernels = {{0, 1'000, Lane::kCompute, 0, 1, 0},
                                 {1'200, 300, Lane::kComm, 1, 1, 0}};
  step.timeline.track.instance = {0, -1};
  step.timeline.track.instances = {{0, 0, 1'000}};
  step.timeline.track.launches = {{1, -250, 40}};
  step.timeline.track.dropped = 3;
  Finding finding;
  finding.id = "unfused-rmsnorm";
  finding.ranks = {7};
  finding.evidence_values = {{"x", 1.5}};
  finding.text_labels = {{"op", "RmsNorm"}};
  step.fingerprint_findings.push_back(finding);
  r.steps.push_back(step);
  r.comm.rank = 7;
  r.comm.ops.push_back({"allreduce#1", CollectiveType::kReduceScatter, 4, 10, 20, 1024, 128, 8,
                        GroupSizeSource::kLinks, -1, 0, std::numeric_limits<int64_t>::max()});
  r.comm.ops.back().host_idle_before = {.data_loader_ns = 3, .launch_ns = 5};
  r.comm.host_known = true;
  r.comm.steps.push_back({});
  r.comm.steps.back().step = 4;
  r.comm.steps.back().host_idle_before_start.push_back({100, 250, HostIdleKind::kDataLoader});
  r.links.rank = 7;
  model::CommLinkRecord link;
  link.p2p = true;
  link.transport = "HCCS";
  r.links.links.push_back(link);
  return r;
}

uint64_t Bits(double value) { return std::bit_cast<uint64_t>(value); }

TEST(RankResultIoTest, SampleRoundTripsBitExactly) {
  const RankResult sample = MakeSample();
  const std::string bytes = SerializeRankResult(sample);
  auto back = DeserializeRankResult(bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(SerializeRankResult(*back), bytes);
  const KernelSummary& k = back->steps.at(0).distribution.kernels;
  EXPECT_EQ(Bits(k.p50_ns), Bits(sample.steps[0].distribution.kernels.p50_ns));
  EXPECT_TRUE(std::signbit(k.mean_issue_interval_ns));
  EXPECT_TRUE(std::isinf(k.p99_ns));
  EXPECT_EQ(k.max_ns, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(k.span_ns, std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(k.copies_known);
  EXPECT_EQ(k.memcpy_count, 2);
  EXPECT_EQ(k.memset_count, 1);
  EXPECT_EQ(k.memcpy_time_ns, 90'000);
  EXPECT_EQ(k.memset_time_ns, 5'000);
  EXPECT_EQ(back->comm.ops.at(0).transit_ns, -1);  // unknown stays unknown
  EXPECT_EQ(back->comm.ops[0].wait_ns, 0);
  EXPECT_EQ(back->comm.ops[0].sync_ns, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(back->comm.ops[0].type, CollectiveType::kReduceScatter);
  EXPECT_EQ(back->comm.ops[0].host_idle_before, sample.comm.ops[0].host_idle_before);
  EXPECT_TRUE(back->comm.host_known);
  ASSERT_EQ(back->comm.steps.at(0).host_idle_before_start.size(), 1u);
  EXPECT_EQ(back->comm.steps[0].host_idle_before_start[0].kind, HostIdleKind::kDataLoader);
  EXPECT_EQ(back->steps_info.spans_ns, sample.steps_info.spans_ns);
  EXPECT_EQ(back->steps[0].distribution.step_trace->preparing_ns, 1'250);
  EXPECT_EQ(back->steps[0].distribution.breakdown->budget.idle_ns, -5);
  EXPECT_EQ(back->steps[0].distribution.motifs.at(0).fingerprint, "rmsnorm");
  EXPECT_FALSE(back->steps[0].distribution.motifs[0].variant.has_value());
  EXPECT_EQ(back->steps[0].distribution.motifs[0].instance_starts_ns[1],
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(back->steps[0].distribution.motifs[0].period_ns, 0.5);
  EXPECT_EQ(back->steps[0].timeline.zooms.at(0).width_ns, 4000.25);
  EXPECT_EQ(back->steps[0].timeline.zooms.at(0).kernels.at(0).lane, Lane::kOther);
  EXPECT_EQ(back->steps[0].timeline.zooms[0].requested_width_ns, 8000.5);
  EXPECT_EQ(back->steps[0].timeline.overview.lanes[1].at(0).kernels, 4);
  EXPECT_EQ(back->steps[0].timeline.track.kernels.at(1).start_ns, 1'200);
  EXPECT_EQ(back->steps[0].timeline.track.instance, (std::vector<int32_t>{0, -1}));
  EXPECT_EQ(back->steps[0].timeline.track.instances.at(0).end_ns, 1'000);
  EXPECT_EQ(back->steps[0].timeline.track.dropped, 3);
  ASSERT_EQ(back->steps[0].timeline.track.launches.size(), 1u);
  EXPECT_EQ(back->steps[0].timeline.track.launches[0].start_ns, -250);
  EXPECT_EQ(back->steps[0].fingerprint_findings.at(0).text_labels,
            sample.steps[0].fingerprint_findings[0].text_labels);
  EXPECT_EQ(back->header.files.at(0).samples.at(0).detail, "Start Time (us) is \"x\"");
  EXPECT_TRUE(back->links.links.at(0).p2p);
  EXPECT_EQ(back->links.links[0].transport, "HCCS");
  EXPECT_EQ(back->header.warnings, sample.header.warnings);
  EXPECT_EQ(back->header.inventory, sample.header.inventory);
  ASSERT_TRUE(back->steps[0].distribution.data_loader.has_value());
  EXPECT_EQ(back->steps[0].distribution.data_loader->idle_ns, 56'522'000);
  EXPECT_EQ(back->steps[0].distribution.data_loader->step_ns, 190'204'000);
  ASSERT_TRUE(back->steps[0].distribution.operator_efficiency.has_value());
  EXPECT_EQ(back->steps[0].distribution.operator_efficiency->rows.at(0).yardstick_tflops, 674.5);
  ASSERT_TRUE(back->steps[0].distribution.module_tree.has_value());
  EXPECT_EQ(back->steps[0].distribution.module_tree->nodes.at(1).fingerprints,
            (std::vector<std::string>{"unfused-rmsnorm"}));
  EXPECT_EQ(back->steps[0].distribution.module_tree->outside_ns, 7'000);
  ASSERT_TRUE(back->steps[0].distribution.framework_ops.has_value());
  EXPECT_EQ(back->steps[0].distribution.framework_ops->ops.at(0).top_kernels.at(0).count, 168);
  EXPECT_EQ(back->steps[0].distribution.framework_ops->modules.at(0).fingerprints,
            (std::vector<std::string>{"unfused-rmsnorm"}));
  EXPECT_EQ(back->steps[0].distribution.framework_ops->owned_ns, 31'905'473);
  ASSERT_TRUE(back->steps[0].distribution.memory.has_value());
  EXPECT_EQ(back->steps[0].distribution.memory->gap_mean_bytes, 490766425);
  EXPECT_FALSE(back->steps[0].distribution.memory->gap_max_bytes.has_value());
  EXPECT_EQ(back->steps[0].distribution.memory->top_holders.at(0).name, "aten::_foreach_add");
}

// The bytes of a fixed sample pin the layout: when this fails, a
// serialised struct changed; bump kRankResultFormatVersion and record the
// new length and hash here with it.
TEST(RankResultIoTest, FormatVersionMatchesTheLayout) {
  const std::string bytes = SerializeRankResult(MakeSample());
  uint64_t hash = 14695981039346656037ull;  // FNV-1a
  for (char c : bytes) hash = (hash ^ static_cast<uint8_t>(c)) * 1099511628211ull;
  struct Layout {
    uint32_t version;
    size_t size;
    uint64_t hash;
  };
  constexpr Layout kLayout{30, 1648, 0x4a655da73f57383f};
  EXPECT_EQ(kRankResultFormatVersion, kLayout.version);
  EXPECT_EQ(bytes.size(), kLayout.size);
  EXPECT_EQ(hash, kLayout.hash) << std::hex << hash;
}

TEST(RankResultIoTest, EveryTruncationIsAnErrorWithItsOffset) {
  const std::string bytes = SerializeRankResult(MakeSample());
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto back = DeserializeRankResult(std::string_view(bytes).substr(0, n));
    ASSERT_FALSE(back.ok()) << n;
    EXPECT_EQ(back.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(back.status().message().find("of " + std::to_string(n) + ":"), std::string::npos)
        << back.status().message();
  }
}

TEST(RankResultIoTest, TrailingBytesAreRefused) {
  auto back = DeserializeRankResult(SerializeRankResult(MakeSample()) + "x");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find("1 trailing bytes"), std::string::npos)
      << back.status().message();
}

TEST(RankResultIoTest, CorruptLengthIsRefusedBeforeAllocating) {
  RankResult small;
  small.header.source = "abc";
  std::string bytes = SerializeRankResult(small);
  // "TSRR", version, rank (zigzag -1 = 1), then the source's length byte.
  ASSERT_EQ(bytes[6], 3);
  std::string corrupt = bytes.substr(0, 6);
  ByteWriter huge;
  huge.Varint(uint64_t{1} << 62);
  corrupt += huge.Take() + bytes.substr(7);
  auto back = DeserializeRankResult(corrupt);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find("byte 6 of"), std::string::npos)
      << back.status().message();
  EXPECT_NE(back.status().message().find("string length 4611686018427387904 exceeds"),
            std::string::npos)
      << back.status().message();
  // A vector count far beyond the bytes left: the warnings, right after files.
  RankResult counted;
  counted.header.warnings = {"w"};
  std::string vec = SerializeRankResult(counted);
  const size_t at = vec.find(std::string("\x01\x01w", 3));
  ASSERT_NE(at, std::string::npos);
  vec[at] = 0x7f;
  auto refused = DeserializeRankResult(vec);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("vector count 127 cannot fit"), std::string::npos)
      << refused.status().message();
}

TEST(RankResultIoTest, WrongMagicAndUnknownVersionAreRefused) {
  std::string bytes = SerializeRankResult(MakeSample());
  std::string foreign = bytes;
  foreign[0] = '{';
  auto a = DeserializeRankResult(foreign);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("no \"TSRR\" magic"), std::string::npos);
  std::string newer = bytes;
  newer[4] = static_cast<char>(kRankResultFormatVersion + 1);
  auto b = DeserializeRankResult(newer);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(
      b.status().message().find("format version " + std::to_string(kRankResultFormatVersion + 1) +
                                " is not supported (this build reads version " +
                                std::to_string(kRankResultFormatVersion) + ")"),
      std::string::npos)
      << b.status().message();
  EXPECT_FALSE(DeserializeRankResult("").ok());
}

TEST(RankResultIoTest, OutOfRangeValuesAreRefused) {
  RankResult sample = MakeSample();
  // A timeline string index past its strings would crash StepTimeline::Str.
  sample.steps[0].timeline.overview.lanes[1][0].family = 2;
  auto bad_index = DeserializeRankResult(SerializeRankResult(sample));
  ASSERT_FALSE(bad_index.ok());
  EXPECT_NE(bad_index.status().message().find("string index"), std::string::npos)
      << bad_index.status().message();
  // A track kernel's name past the strings, an instance tag past the
  // instances, a tag list shorter than the kernels.
  for (int variant = 0; variant < 4; ++variant) {
    sample = MakeSample();
    TimelineTrack& track = sample.steps[0].timeline.track;
    if (variant == 0) track.kernels[1].name = 2;
    if (variant == 1) track.instance[1] = 1;
    if (variant == 2) track.instance.pop_back();
    if (variant == 3) track.launches[0].kernel = 2;
    auto bad_track = DeserializeRankResult(SerializeRankResult(sample));
    ASSERT_FALSE(bad_track.ok()) << variant;
    EXPECT_NE(bad_track.status().message().find("kernel index is out of range"), std::string::npos)
        << bad_track.status().message();
  }
  // A module whose parent is not an earlier module.
  sample = MakeSample();
  sample.steps[0].distribution.module_tree->nodes[0].parent = 1;
  auto bad_parent = DeserializeRankResult(SerializeRankResult(sample));
  ASSERT_FALSE(bad_parent.ok());
  EXPECT_NE(bad_parent.status().message().find("is not an earlier module"), std::string::npos)
      << bad_parent.status().message();
  // An enum number with no enumerator.
  sample = MakeSample();
  sample.steps[0].timeline.zooms[0].kernels[0].lane = static_cast<Lane>(9);
  auto bad_enum = DeserializeRankResult(SerializeRankResult(sample));
  ASSERT_FALSE(bad_enum.ok());
  EXPECT_NE(bad_enum.status().message().find("enum value 9"), std::string::npos)
      << bad_enum.status().message();
}

TEST(ByteReaderTest, VarintsRoundTripAndRefuseNonCanonicalForms) {
  ByteWriter w;
  const std::vector<int64_t> values = {0,
                                       -1,
                                       1,
                                       63,
                                       -64,
                                       64,
                                       std::numeric_limits<int64_t>::min(),
                                       std::numeric_limits<int64_t>::max()};
  for (int64_t v : values) w.SignedVarint(v);
  w.Varint(std::numeric_limits<uint64_t>::max());
  const std::string bytes = w.Take();
  ByteReader r(bytes);
  for (int64_t v : values) EXPECT_EQ(r.SignedVarint(), v);
  EXPECT_EQ(r.Varint(), std::numeric_limits<uint64_t>::max());
  EXPECT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.left(), 0u);

  // The readers view their bytes: each buffer outlives its reader.
  const std::string overlong_bytes("\x80\x00", 2);
  ByteReader overlong(overlong_bytes);
  overlong.Varint();
  EXPECT_NE(overlong.error().find("byte 0 of 2: overlong varint"), std::string::npos)
      << overlong.error();
  const std::string too_wide_bytes = std::string(9, '\xff') + "\x02";
  ByteReader too_wide(too_wide_bytes);
  too_wide.Varint();
  EXPECT_NE(too_wide.error().find("exceeds 64 bits"), std::string::npos) << too_wide.error();
  const std::string too_long_bytes(11, '\x80');
  ByteReader too_long(too_long_bytes);
  too_long.Varint();
  EXPECT_FALSE(too_long.ok());
}

// The fuzzer's seed is a real serialised rank (a 1-rank synth job, layers
// 2, steps 2): it must stay readable by the current format, or the fuzzer
// only ever tests the version check. TRAINSCOPE_UPDATE_GOLDEN=1 rewrites it.
TEST(RankResultIoTest, FuzzSeedIsInTheCurrentFormat) {
  const std::string seed = testing::SourceDir() + "/fuzz/corpus/rank_result/synth_rank0";
  if (const char* update = std::getenv("TRAINSCOPE_UPDATE_GOLDEN"); update && *update == '1') {
    synth::SynthOptions options;
    options.ranks = 1;
    options.layers = 2;
    options.steps = 2;
    auto loaded = testing::LoadSynthJob(options, "fuzz_seed");
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    const JobContext context{FamilyRules::Builtin(), AnalysisOptions{}, 1};
    auto result = AnalyzeRank(loaded->profiles.at(0), context);
    ASSERT_TRUE(result.ok()) << result.status().message();
    std::ofstream(seed, std::ios::binary) << SerializeRankResult(*result);
  }
  const std::string bytes = testing::ReadFileBytes(seed);
  ASSERT_FALSE(bytes.empty()) << seed;
  auto back = DeserializeRankResult(bytes);
  EXPECT_TRUE(back.ok()) << back.status().message()
                         << " (rewrite the seed with TRAINSCOPE_UPDATE_GOLDEN=1)";
}

}  // namespace
}  // namespace trainscope::analysis
