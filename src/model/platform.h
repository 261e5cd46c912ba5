// Which accelerator platform a profile comes from. Remedies name switches of
// one platform (TASK_QUEUE_ENABLE and npu_fusion_attention are Ascend's,
// CUDA graphs are NVIDIA's), so a report must know the platform before it
// gives advice (data/findings.tsv, parts PART:PLATFORM).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace trainscope::model {

struct RankProfile;
struct DeviceProperties;

enum class Platform : uint8_t {
  kUnknown = 0,  // no device activity, or ranks of different platforms
  kAscend = 1,   // torch_npu / CANN
  kCuda = 2,     // NVIDIA GPU
  kRocm = 3,     // AMD GPU
  kGpu = 4,      // a GPU trace whose vendor nothing names
  kMtia = 5,     // Meta's MTIA (Kineto mtia_ccp_events as its device activity)
};

// Ascend when the profile is a torch_npu export (CANN or torch_npu version,
// kernel_details.csv, Ascend accelerator cores); a GPU trace by its device
// names (deviceProperties), else by kernel names of one vendor's libraries.
Platform DetectPlatform(const RankProfile& profile);

// "ascend", "cuda", "rocm", "gpu", "mtia", "unknown": the catalogue's spelling.
std::string_view PlatformKey(Platform platform);
// "Ascend NPU", "NVIDIA GPU (CUDA)", ...: for people.
std::string_view PlatformLabel(Platform platform);
std::optional<Platform> ParsePlatformKey(std::string_view key);

// The device as a report names it: deviceProperties' name, and where HIP
// gives only its generic "AMD Radeon Graphics" (a driver that does not know
// the product's marketing name: ROCm on MI200), the facts that tell the
// Instinct part: compute capability, compute units and memory, and the parts
// that have them.
std::string DeviceLabel(const DeviceProperties& device);

// Whether a template for |key| applies to |platform|: its own key, or "gpu"
// for CUDA, ROCm and a GPU of unknown vendor.
bool PlatformMatches(Platform platform, std::string_view key);

}  // namespace trainscope::model
