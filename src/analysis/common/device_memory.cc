#include "analysis/common/device_memory.h"

#include <array>
#include <string>

#include "core/rule_file.h"

namespace trainscope::analysis {
namespace {

// Most specific first ("910b4" before a 910B1-3 row could match "910b").
constexpr std::array<DeviceMemory, 14> kDevices = {{
    {"h100 pcie", "NVIDIA H100 PCIe", 80, "NVIDIA H100 Tensor Core GPU datasheet: H100 PCIe 80GB"},
    {"h100 nvl", "NVIDIA H100 NVL", 94, "NVIDIA H100 Tensor Core GPU datasheet: H100 NVL 94GB"},
    {"h100", "NVIDIA H100 SXM5", 80, "NVIDIA H100 Tensor Core GPU datasheet: H100 SXM 80GB"},
    {"h200", "NVIDIA H200", 141, "NVIDIA H200 Tensor Core GPU datasheet: 141GB HBM3e"},
    {"h800", "NVIDIA H800 SXM5", 80, "NVIDIA H800 Tensor Core GPU datasheet: 80GB HBM3"},
    {"a100-sxm4-80gb", "NVIDIA A100 80GB SXM", 80, "NVIDIA A100 datasheet: 80GB HBM2e"},
    {"a100-sxm4-40gb", "NVIDIA A100 40GB SXM", 40, "NVIDIA A100 datasheet: 40GB HBM2"},
    {"v100-sxm2-32gb", "NVIDIA Tesla V100 SXM2 32GB", 32, "NVIDIA V100 datasheet: 32GB HBM2"},
    {"v100-sxm2-16gb", "NVIDIA Tesla V100 SXM2 16GB", 16, "NVIDIA V100 datasheet: 16GB HBM2"},
    {"mi300x", "AMD Instinct MI300X", 192, "AMD Instinct MI300X datasheet: 192 GB HBM3"},
    {"mi250x", "AMD Instinct MI250X", 128, "AMD Instinct MI250X datasheet: 128 GB HBM2e"},
    {"ascend910b4", "Huawei Ascend 910B4", 32, "Atlas 800T A2 / Ascend 910B4: 32 GB HBM"},
    {"ascend910b3", "Huawei Ascend 910B3", 64, "Atlas 800T A2 / Ascend 910B3: 64 GB HBM"},
    {"ascend910b2", "Huawei Ascend 910B2", 64, "Atlas 800T A2 / Ascend 910B2: 64 GB HBM"},
}};

}  // namespace

std::optional<DeviceMemory> FindDeviceMemory(std::string_view device_name) {
  const std::string name = AsciiLower(device_name);
  if (name.empty()) return std::nullopt;
  for (const DeviceMemory& d : kDevices) {
    if (name.find(d.match) != std::string::npos) return d;
  }
  return std::nullopt;
}

}  // namespace trainscope::analysis
