#include "analysis/common/device_peaks.h"

#include <array>
#include <span>
#include <string>

#include "core/rule_file.h"

namespace trainscope::analysis {
namespace {

// Most specific first: "h100 pcie" before the SXM part's nvidia-smi name.
// Dense rates are half the datasheets' "with sparsity" figures where the
// datasheet prints only those (NVIDIA Hopper, Ampere; AMD MI300X prints
// both).
constexpr std::array<DevicePeak, 13> kPeaks = {{
    {"h100 pcie", "NVIDIA H100 PCIe", 756, 1, 1513, 51, 2000,
     "NVIDIA H100 Tensor Core GPU datasheet, H100 PCIe: BF16/FP16 Tensor Core 1,513 TFLOPS and "
     "FP8 3,026 TFLOPS with sparsity (dense: half), FP32 51 TFLOPS, 2 TB/s"},
    {"h100 80gb hbm3", "NVIDIA H100 SXM5 80GB", 989.5, 1, 1979, 67, 3350,
     "NVIDIA H100 Tensor Core GPU datasheet, H100 SXM: BF16/FP16 Tensor Core 1,979 TFLOPS and "
     "FP8 3,958 TFLOPS with sparsity (dense: half), FP32 67 TFLOPS, 3.35 TB/s"},
    {"h200", "NVIDIA H200 SXM", 989.5, 1, 1979, 67, 4800,
     "NVIDIA H200 Tensor Core GPU datasheet, H200 SXM: BF16/FP16 Tensor Core 1,979 TFLOPS and "
     "FP8 3,958 TFLOPS with sparsity (dense: half), FP32 67 TFLOPS, 4.8 TB/s"},
    {"b200", "NVIDIA B200 (HGX B200)", 2250, 1, 4500, 0, 8000,
     "NVIDIA HGX B200 datasheet, per GPU: FP16/BF16 Tensor Core 4.5 PFLOPS and FP8 9 PFLOPS "
     "with sparsity (dense: half), HBM3e 8 TB/s; no FP32 row used"},
    {"h800", "NVIDIA H800 SXM5", 989.5, 1, 1979, 67, 3350,
     "NVIDIA H800 Tensor Core GPU datasheet, H800 SXM: BF16/FP16 Tensor Core 1,979 TFLOPS and "
     "FP8 3,958 TFLOPS with sparsity (dense: half), FP32 67 TFLOPS, 3.35 TB/s"},
    {"a100-sxm4-80gb", "NVIDIA A100 80GB SXM", 312, 1, 0, 19.5, 2039,
     "NVIDIA A100 Tensor Core GPU datasheet, A100 80GB SXM: BF16/FP16 Tensor Core 312 TFLOPS "
     "dense (624 with sparsity), FP32 19.5 TFLOPS, 2,039 GB/s"},
    {"a100-sxm4-40gb", "NVIDIA A100 40GB SXM", 312, 1, 0, 19.5, 1555,
     "NVIDIA A100 Tensor Core GPU datasheet, A100 40GB SXM: BF16/FP16 Tensor Core 312 TFLOPS "
     "dense (624 with sparsity), FP32 19.5 TFLOPS, 1,555 GB/s"},
    {"v100-sxm2", "NVIDIA Tesla V100 SXM2", 125, 0, 0, 15.7, 900,
     "NVIDIA Tesla V100 GPU datasheet, V100 SXM2: Tensor Performance (FP16) 125 TFLOPS (no "
     "sparsity, no BF16), single-precision 15.7 TFLOPS, 900 GB/s"},
    {"v100-pcie", "NVIDIA Tesla V100 PCIe", 112, 0, 0, 14, 900,
     "NVIDIA Tesla V100 GPU datasheet, V100 PCIe: Tensor Performance (FP16) 112 TFLOPS (no "
     "sparsity, no BF16), single-precision 14 TFLOPS, 900 GB/s"},
    {"mi300x", "AMD Instinct MI300X", 1307.4, 1, 2614.9, 163.4, 5300,
     "AMD Instinct MI300X accelerator datasheet: peak FP16/BF16 1,307.4 TFLOPS dense (2,614.9 "
     "with sparsity), FP8 2,614.9 TFLOPS dense, FP32 163.4 TFLOPS, 5.3 TB/s HBM3"},
    {"910c", "Huawei Ascend 910C", 752, 1, 0, 0, 3200,
     "Huawei CloudMatrix384 paper (Zuo et al. 2025, arXiv 2506.12708), sec. 3: Ascend 910C, two "
     "dies, 752 TFLOPS dense BF16/FP16 per package, 128 GB HBM at 3.2 TB/s"},
    {"910b", "Huawei Ascend 910B (910B2)", 376, 1, 0, 0, 1600,
     "Huawei CloudMatrix384 paper (Zuo et al. 2025, arXiv 2506.12708), sec. 3: one Ascend die of "
     "the 910C's two gives 376 TFLOPS dense BF16/FP16, the 910B2's rate; 910B3/910B4 bins are "
     "lower (give --peak-tflops); HBM2e 1.6 TB/s"},
    {"mi250x", "AMD Instinct MI250X", 383, 1, 0, 47.9, 3277,
     "AMD Instinct MI250X accelerator datasheet: peak FP16/BF16 383 TFLOPS (no sparsity), FP32 "
     "vector 47.9 TFLOPS, 3.2 TB/s (3,276.8 GB/s) HBM2e"},
}};

}  // namespace

std::string NormalisedDtype(std::string_view dtype) {
  std::string t = AsciiLower(dtype);
  if (t.starts_with("dt_")) t.erase(0, 3);
  if (t.starts_with("c10::")) t.erase(0, 5);
  return t;
}

std::optional<DevicePeak> FindDevicePeak(std::string_view device_name) {
  const std::string name = AsciiLower(device_name);
  if (name.empty()) return std::nullopt;
  for (const DevicePeak& peak : kPeaks) {
    if (name.find(peak.match) != std::string::npos) return peak;
  }
  return std::nullopt;
}

std::span<const DevicePeak> AllDevicePeaks() { return kPeaks; }

std::optional<double> PeakTflopsFor(const DevicePeak& peak, std::string_view dtype) {
  const std::string t = NormalisedDtype(dtype);
  auto known = [](double v) { return v > 0 ? std::optional<double>(v) : std::nullopt; };
  if (t == "float16" || t == "fp16" || t == "half") return known(peak.fp16_tflops);
  if (t == "bfloat16" || t == "bf16") return known(peak.fp16_tflops * peak.bf16);
  if (t.starts_with("float8") || t.starts_with("fp8")) return known(peak.fp8_tflops);
  if (t == "float" || t == "float32" || t == "fp32") return known(peak.fp32_tflops);
  return std::nullopt;
}

}  // namespace trainscope::analysis
