// model::DetectPlatform on hand-made profiles: the platform decides which
// switches a remedy names (issue 13 item 4).
#include "model/platform.h"

#include <gtest/gtest.h>

#include <string>

#include "model/rank_profile.h"

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
  EXPECT_EQ(DetectPlatform(TraceWithKernel("void at::native::vectorized_elementwise_kernel<4>()")),
            Platform::kGpu);
  EXPECT_EQ(DetectPlatform(RankProfile{}), Platform::kUnknown);  // nothing ran on a device
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

}  // namespace
}  // namespace trainscope::model
