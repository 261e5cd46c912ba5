#include "model/platform.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "core/enum_names.h"
#include "model/rank_profile.h"

namespace trainscope::model {
namespace {

bool ContainsNoCase(std::string_view text, std::string_view part) {
  return std::search(text.begin(), text.end(), part.begin(), part.end(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) ==
                  std::tolower(static_cast<unsigned char>(b));
         }) != text.end();
}

// A device name (Kineto deviceProperties) of one vendor.
std::optional<Platform> VendorOfDevice(std::string_view name) {
  for (std::string_view amd : {"AMD", "Radeon", "Instinct"}) {
    if (ContainsNoCase(name, amd)) return Platform::kRocm;
  }
  for (std::string_view nvidia : {"NVIDIA", "Tesla", "GeForce", "Quadro", "RTX"}) {
    if (ContainsNoCase(name, nvidia)) return Platform::kCuda;
  }
  return std::nullopt;
}

// Kernel names only one vendor's libraries produce: Tensile/hipBLASLt GEMMs
// (Cijk_), Composable Kernel, rocPRIM and ROCm's runtime kernels; cuBLAS'
// nvjet, CUTLASS' SM-tagged kernels, cuDNN.
std::optional<Platform> VendorOfKernel(std::string_view name) {
  static constexpr std::array<std::string_view, 5> kRocm = {"Cijk_", "ck::", "rocprim",
                                                            "__amd_rocclr", "hipblaslt"};
  static constexpr std::array<std::string_view, 5> kCuda = {"nvjet", "sm80_", "sm90_", "cudnn",
                                                            "cublas"};
  for (std::string_view part : kRocm) {
    if (ContainsNoCase(name, part)) return Platform::kRocm;
  }
  for (std::string_view part : kCuda) {
    if (ContainsNoCase(name, part)) return Platform::kCuda;
  }
  return std::nullopt;
}

}  // namespace

Platform DetectPlatform(const RankProfile& profile) {
  const bool ascend_export = !profile.profiler_output.empty() ||
                             !profile.info.cann_version.empty() ||
                             !profile.info.torch_npu_version.empty() || !profile.step_trace.empty();
  if (ascend_export) return Platform::kAscend;
  for (const DeviceProperties& device : profile.timeline.devices) {
    if (auto vendor = VendorOfDevice(device.name)) return *vendor;
  }
  // The runtime's own keys (roctracer_version, cupti_version...) when the
  // device name says no vendor.
  if (profile.timeline.gpu_runtime == "ROCm") return Platform::kRocm;
  if (profile.timeline.gpu_runtime == "CUDA") return Platform::kCuda;
  const DeviceEvents& events = profile.device_events;
  if (events.size() == 0) return Platform::kUnknown;
  // A trace's device events keep their Kineto category: MTIA's are
  // mtia_ccp_events.
  if (profile.strings.Get(events.accelerator[0]) == "mtia_ccp_events") return Platform::kMtia;
  // Names repeat: look at each distinct name once, a bounded number of them.
  std::vector<bool> seen(profile.strings.size(), false);
  size_t looked = 0;
  for (size_t i = 0; i < events.size() && looked < 4096; ++i) {
    const StringId name = events.name[i];
    if (name >= seen.size() || seen[name]) continue;
    seen[name] = true;
    ++looked;
    if (auto vendor = VendorOfKernel(profile.strings.Get(name))) return *vendor;
  }
  return Platform::kGpu;
}

// The catalogue's spelling; kUnknown is never parsed.
constexpr EnumNames<Platform, 5> kPlatformKeys{{{{Platform::kAscend, "ascend"},
                                                 {Platform::kCuda, "cuda"},
                                                 {Platform::kRocm, "rocm"},
                                                 {Platform::kGpu, "gpu"},
                                                 {Platform::kMtia, "mtia"}}},
                                               "unknown"};

std::string_view PlatformKey(Platform platform) { return kPlatformKeys.Name(platform); }

std::string_view PlatformLabel(Platform platform) {
  switch (platform) {
    case Platform::kAscend:
      return "Ascend NPU (torch_npu / CANN)";
    case Platform::kCuda:
      return "NVIDIA GPU (CUDA)";
    case Platform::kRocm:
      return "AMD GPU (ROCm)";
    case Platform::kGpu:
      return "GPU (vendor not named in the trace)";
    case Platform::kMtia:
      return "Meta MTIA";
    case Platform::kUnknown:
      break;
  }
  return "unknown";
}

namespace {

// Instinct parts by (compute major, minor, compute units), from AMD's data
// sheets: an MI210 and one die (GCD) of an MI250 both have 104 CUs and 64 GB,
// an MI250X die 110 CUs, an MI100 120 CUs (gfx908 and gfx90a both report 9.0).
struct InstinctPart {
  int32_t major;
  int32_t minor;
  int32_t compute_units;
  std::string_view parts;
};
constexpr InstinctPart kInstinctParts[] = {
    {9, 0, 104, "AMD Instinct MI210 or one die of an MI250"},
    {9, 0, 110, "one die of an AMD Instinct MI250X"},
    {9, 0, 120, "AMD Instinct MI100"},
    {9, 4, 304, "AMD Instinct MI300X"},
    {9, 4, 228, "AMD Instinct MI300A"},
};

}  // namespace

std::string DeviceLabel(const DeviceProperties& device) {
  if (device.name != "AMD Radeon Graphics" || device.num_sms <= 0) return device.name;
  std::string label = fmt::format("{} (compute {}.{}, {} CUs", device.name, device.compute_major,
                                  device.compute_minor, device.num_sms);
  if (device.total_global_mem > 0) {
    label += fmt::format(", {:.1f} GiB", static_cast<double>(device.total_global_mem) /
                                             static_cast<double>(int64_t{1} << 30));
  }
  for (const InstinctPart& part : kInstinctParts) {
    if (part.major == device.compute_major && part.minor == device.compute_minor &&
        part.compute_units == device.num_sms) {
      label += fmt::format(": {}", part.parts);
      break;
    }
  }
  return label + ")";
}

std::optional<Platform> ParsePlatformKey(std::string_view key) {
  return kPlatformKeys.FromName(key);
}

bool PlatformMatches(Platform platform, std::string_view key) {
  if (PlatformKey(platform) == key) return true;
  const bool gpu =
      platform == Platform::kCuda || platform == Platform::kRocm || platform == Platform::kGpu;
  return gpu && key == "gpu";
}

}  // namespace trainscope::model
