// model::DetectPlatform on hand-made profiles: the platform decides which
// switches a remedy names. Also core::EnumNames, the one table of an enum's
// names read both ways, and the model's tables built on it (the platform
// keys among them).
#include "model/platform.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "analysis/common/family_rules.h"
#include "analysis/job/rank_analysis.h"
#include "core/enum_names.h"
#include "formats/load_profiles.h"
#include "model/activity_kind.h"
#include "model/memory.h"
#include "model/rank_profile.h"
#include "model/timeline_classify.h"
#include "report/text_report.h"
#include "synth/synth.h"
#include "test_paths.h"

namespace trainscope::model {
namespace {

RankProfile TraceWithKernel(const std::string& kernel_name) {
  RankProfile profile;
  DeviceEvent event;
  event.name = profile.strings.Intern(kernel_name);
  event.op_type = event.name;
  event.start_ns = 1000;
  event.duration_ns = 10;
  profile.device_events.Append(event);
  return profile;
}

TEST(Platform, AnAscendExportIsAscend) {
  RankProfile profile = TraceWithKernel("MatMulV3");
  profile.profiler_output = "job/rank_0_ascend_pt/ASCEND_PROFILER_OUTPUT";
  EXPECT_EQ(DetectPlatform(profile), Platform::kAscend);
  RankProfile versions;
  versions.info.cann_version = "8.3.RC1";
  EXPECT_EQ(DetectPlatform(versions), Platform::kAscend);
}

TEST(Platform, DeviceNamesNameTheVendor) {
  RankProfile profile = TraceWithKernel("void at::native::elementwise_kernel<128, 4>()");
  profile.timeline.devices.push_back(DeviceProperties{0, "Tesla V100-SXM2-32GB"});
  EXPECT_EQ(DetectPlatform(profile), Platform::kCuda);
  profile.timeline.devices[0].name = "NVIDIA H800";
  EXPECT_EQ(DetectPlatform(profile), Platform::kCuda);
  profile.timeline.devices[0].name = "AMD Instinct MI300X";
  EXPECT_EQ(DetectPlatform(profile), Platform::kRocm);
  profile.timeline.devices[0].name = "AMD Radeon Graphics";  // how ROCm 6.2 names an MI250
  EXPECT_EQ(DetectPlatform(profile), Platform::kRocm);
}

TEST(Platform, WithoutDeviceNamesOneVendorsKernelsDecide) {
  EXPECT_EQ(DetectPlatform(TraceWithKernel("Cijk_Alik_Bljk_HHS_BH_MT128x128x32")), Platform::kRocm);
  EXPECT_EQ(DetectPlatform(TraceWithKernel("nvjet_tst_128x256_64x4_2x1_v_bz_coopA_TNT")),
            Platform::kCuda);
  EXPECT_EQ(DetectPlatform(TraceWithKernel("sm90_xmma_gemm_bf16bf16_bf16f32")), Platform::kCuda);
  // A generic PyTorch kernel names no vendor.
  EXPECT_EQ(DetectPlatform(TraceWithKernel("at::native::vectorized_elementwise_kernel<4>")),
            Platform::kGpu);
  EXPECT_EQ(DetectPlatform(RankProfile{}), Platform::kUnknown);  // nothing ran on a device
}

// A Kineto trace as torch.profiler writes it on ROCm (top-level keys as in
// the corpus MI300X traces: deviceProperties, roctracer_version,
// hip_runtime_version), hand-written: one ProfilerStep and one kernel.
std::string RocmTrace(const std::string& device_name, const std::string& runtime_keys) {
  return R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": ")" + device_name +
         R"(", "totalGlobalMem": 206141652992, "computeMajor": 9, "computeMinor": 4}],
  )" + runtime_keys +
         R"("traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1,
   "ts": 1000.0, "dur": 500.0},
  {"ph": "X", "cat": "kernel", "name": "at::native::vectorized_elementwise_kernel<4>",
   "pid": 0, "tid": 7, "ts": 1100.0, "dur": 50.0, "args": {"device": 0, "stream": 7}}
  ]
})";
}

analysis::JobAnalysis AnalyzeTraceText(const std::string& text) {
  const std::string dir = testing::MakeTempDir("platform_rocm");
  const std::string path = dir + "/rank0.pt.trace.json";
  std::ofstream(path) << text;
  auto loaded = formats::LoadProfiles({path}, 1);
  EXPECT_TRUE(loaded.ok()) << loaded.status().message();
  if (!loaded.ok()) return {};
  auto job = analysis::AnalyzeJob(loaded->profiles, analysis::FamilyRules::Builtin(),
                                  analysis::AnalysisOptions{}, 1);
  EXPECT_TRUE(job.ok()) << job.status().message();
  return job.ok() ? std::move(job).value() : analysis::JobAnalysis{};
}

// ROCm traces name their vendor and device: the platform line reads
// "AMD GPU (ROCm), AMD Instinct MI300X"; a device name that names no vendor
// (an unknown gfx name) still gives ROCm by the runtime's own keys.
TEST(Platform, RocmTracesNameTheirVendorAndDevice) {
  const analysis::JobAnalysis named =
      AnalyzeTraceText(RocmTrace("AMD Instinct MI300X", R"("roctracer_version": "4.1", )"));
  ASSERT_EQ(named.ranks.size(), 1u);
  EXPECT_EQ(named.ranks[0].header.platform, Platform::kRocm);
  EXPECT_EQ(named.ranks[0].header.device_name, "AMD Instinct MI300X");
  const std::string text = report::RenderText(named, report::TextReportOptions{});
  EXPECT_NE(text.find("platform:    AMD GPU (ROCm), AMD Instinct MI300X"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("vendor not named"), std::string::npos);

  const analysis::JobAnalysis by_runtime = AnalyzeTraceText(
      RocmTrace("gfx942", R"("roctracer_version": "4.1", "hip_runtime_version": "60443483", )"));
  ASSERT_EQ(by_runtime.ranks.size(), 1u);
  EXPECT_EQ(by_runtime.ranks[0].header.platform, Platform::kRocm);
  EXPECT_EQ(by_runtime.ranks[0].header.device_name, "gfx942");

  const analysis::JobAnalysis unnamed = AnalyzeTraceText(RocmTrace("gfx942", ""));
  ASSERT_EQ(unnamed.ranks.size(), 1u);
  EXPECT_EQ(unnamed.ranks[0].header.platform, Platform::kGpu) << "nothing names a vendor";
}

// HIP's generic "AMD Radeon Graphics" (ROCm on MI200 parts) names no
// product: the report adds the facts that tell the Instinct part (compute
// capability, compute units, memory) and the parts that have them; any
// other name is kept as the trace gives it.
TEST(Platform, GenericRadeonNameGetsTheInstinctFacts) {
  DeviceProperties mi250_die;
  mi250_die.name = "AMD Radeon Graphics";
  mi250_die.compute_major = 9;
  mi250_die.compute_minor = 0;
  mi250_die.num_sms = 104;
  mi250_die.total_global_mem = 68702699520;  // HTA's MI250 toy trace
  EXPECT_EQ(DeviceLabel(mi250_die),
            "AMD Radeon Graphics (compute 9.0, 104 CUs, 64.0 GiB: AMD Instinct MI210 or one die "
            "of an MI250)");
  DeviceProperties unknown = mi250_die;
  unknown.num_sms = 60;
  EXPECT_EQ(DeviceLabel(unknown), "AMD Radeon Graphics (compute 9.0, 60 CUs, 64.0 GiB)");
  DeviceProperties named = mi250_die;
  named.name = "AMD Instinct MI300X";
  EXPECT_EQ(DeviceLabel(named), "AMD Instinct MI300X");
}

// Every ROCm trace of the corpus names its vendor and its device in the
// platform line.
TEST(Platform, CorpusRocmTracesNameVendorAndDevice) {
  TS_REQUIRE_CORPUS("kineto/hta_amd_mi250_rocm62_minitoy");
  const struct {
    const char* path;
    const char* line;
  } traces[] = {
      {"kineto/hta_amd_mi250_rocm62_minitoy/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
       "platform:    AMD GPU (ROCm), AMD Radeon Graphics (compute 9.0, 104 CUs, 64.0 GiB: AMD "
       "Instinct MI210 or one die of an MI250)"},
      {"kineto/tracelens_mi300x_resnet_ddp_8rank_rank0_actckpt/resnet_act_checkpoint.json.gz",
       "platform:    AMD GPU (ROCm), AMD Instinct MI300X\n"},
      {"kineto/tracelens_qwen1.5_0.5b_h100_vs_mi300x/mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
       "platform:    AMD GPU (ROCm), AMD Instinct MI300X VF\n"},
  };
  for (const auto& t : traces) {
    SCOPED_TRACE(t.path);
    auto loaded = formats::LoadProfiles({corpus_path + "/" + t.path}, 2);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    auto job = analysis::AnalyzeJob(loaded->profiles, analysis::FamilyRules::Builtin(),
                                    analysis::AnalysisOptions{}, 2);
    ASSERT_TRUE(job.ok()) << job.status().message();
    const std::string text = report::RenderText(*job, report::TextReportOptions{});
    EXPECT_NE(text.find(t.line), std::string::npos) << text.substr(0, 2000);
  }
}

TEST(Platform, KeysRoundTripAndGpuCoversEveryGpu) {
  for (Platform p : {Platform::kAscend, Platform::kCuda, Platform::kRocm, Platform::kGpu}) {
    EXPECT_EQ(ParsePlatformKey(PlatformKey(p)), p);
    EXPECT_TRUE(PlatformMatches(p, PlatformKey(p)));
  }
  EXPECT_TRUE(PlatformMatches(Platform::kCuda, "gpu"));
  EXPECT_TRUE(PlatformMatches(Platform::kRocm, "gpu"));
  EXPECT_FALSE(PlatformMatches(Platform::kAscend, "gpu"));
  EXPECT_FALSE(PlatformMatches(Platform::kUnknown, "gpu"));
  EXPECT_FALSE(ParsePlatformKey("unknown").has_value());
}

enum class EnumNamesTestColour { kRed, kGreen, kUnknown };

constexpr EnumNames<EnumNamesTestColour, 2> kEnumNamesTestColours{
    {{{EnumNamesTestColour::kRed, "red"}, {EnumNamesTestColour::kGreen, "green"}}}, "unknown"};

TEST(EnumNamesTest, NamesAndParsesBothWays) {
  EXPECT_EQ(kEnumNamesTestColours.Name(EnumNamesTestColour::kRed), "red");
  EXPECT_EQ(kEnumNamesTestColours.Name(EnumNamesTestColour::kGreen), "green");
  EXPECT_EQ(kEnumNamesTestColours.FromName("green"), EnumNamesTestColour::kGreen);
  EXPECT_EQ(kEnumNamesTestColours.FromName("red"), EnumNamesTestColour::kRed);
}

TEST(EnumNamesTest, AValueLeftOutIsNamedByTheFallbackAndNeverParsed) {
  EXPECT_EQ(kEnumNamesTestColours.Name(EnumNamesTestColour::kUnknown), "unknown");
  EXPECT_FALSE(kEnumNamesTestColours.FromName("unknown").has_value());
  EXPECT_FALSE(kEnumNamesTestColours.FromName("Red").has_value());  // exact spelling only
  EXPECT_FALSE(kEnumNamesTestColours.FromName("").has_value());
}

TEST(EnumNamesTest, ChoicesListTheNamesInTableOrder) {
  EXPECT_EQ(kEnumNamesTestColours.Choices(), "red or green");
  EXPECT_EQ(model::kActivityKindNames.Choices(), "compute, communication, memcpy or memset");
}

TEST(EnumNamesTest, UsableAtCompileTime) {
  static_assert(kEnumNamesTestColours.Name(EnumNamesTestColour::kGreen) == "green");
  static_assert(*kEnumNamesTestColours.FromName("red") == EnumNamesTestColour::kRed);
  SUCCEED();
}

// Every table of the model: each name read back gives the value it names.
TEST(EnumNamesTest, ModelTablesRoundTrip) {
  for (const auto& row : model::kActivityKindNames.rows()) {
    EXPECT_EQ(model::ActivityKindName(row.value), row.name);
    EXPECT_EQ(model::kActivityKindNames.FromName(row.name), row.value);
  }
  for (model::Platform p :
       {model::Platform::kAscend, model::Platform::kCuda, model::Platform::kRocm,
        model::Platform::kGpu, model::Platform::kMtia}) {
    EXPECT_EQ(model::ParsePlatformKey(model::PlatformKey(p)), p) << model::PlatformKey(p);
  }
  EXPECT_EQ(model::PlatformKey(model::Platform::kUnknown), "unknown");
  EXPECT_FALSE(model::ParsePlatformKey("unknown").has_value());
  for (model::MemoryComponent c :
       {model::MemoryComponent::kPta, model::MemoryComponent::kGe, model::MemoryComponent::kPtaGe,
        model::MemoryComponent::kApp, model::MemoryComponent::kWorkspace,
        model::MemoryComponent::kOther}) {
    EXPECT_EQ(model::MemoryComponentFromName(model::MemoryComponentName(c)), c);
  }
  EXPECT_EQ(model::MemoryComponentFromName("DEVICE"), model::MemoryComponent::kOther);
  for (const auto& row : synth::kHeaderVariantNames.rows()) {
    EXPECT_EQ(synth::kHeaderVariantNames.FromName(row.name), row.value);
  }
  EXPECT_EQ(synth::kHeaderVariantNames.Name(synth::HeaderVariant::kLevel1_2025), "level1-2025");
}

// A class rule file's kind column is read through the same table, and an
// unknown kind's hint lists the table's names.
TEST(EnumNamesTest, ClassRulesReadKindsThroughTheTable) {
  Result<std::vector<model::ClassRule>> rules =
      model::ParseClassRules("MEMCPY\tprefix\tmy_copy\ncommunication\tcontains\tmy_ar\n", "rules");
  ASSERT_TRUE(rules.ok()) << rules.status().message();
  ASSERT_EQ(rules->size(), 2u);
  EXPECT_EQ((*rules)[0].kind, model::ActivityKind::kMemcpy);
  EXPECT_EQ((*rules)[1].kind, model::ActivityKind::kCommunication);
  Result<std::vector<model::ClassRule>> bad = model::ParseClassRules("dma\tprefix\tx\n", "rules");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(
                "unknown kind 'dma'\nhint: use compute, communication, memcpy or memset"),
            std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace trainscope::model
