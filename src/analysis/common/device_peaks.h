// Peak throughput of the accelerators traces name (Kineto deviceProperties
// "name"), for an operator's achieved FLOP/s and bytes/s as a share of what
// the device can do (operator_efficiency, as TraceLens' roofline sheets).
// Each row is a vendor datasheet's figure (docs/findings.md, "Device peaks"):
// the dense tensor/matrix-core rate (datasheets print the 2:4-sparsity
// figure first, twice the dense one), the plain FP32 rate (not TF32) and
// the memory bandwidth. A device or dtype not in the table has no peak: the
// share of peak is unknown (null), never 0.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace trainscope::analysis {

struct DevicePeak {
  std::string_view match;     // lower-case substring of the device name
  std::string_view device;    // the datasheet's product
  double fp16_tflops = 0;     // dense FP16/BF16 tensor core; 0 = none
  double bf16 = 1;            // 1 when BF16 runs at the FP16 rate, 0 when the device has no BF16
  double fp8_tflops = 0;      // dense FP8 tensor core; 0 = none
  double fp32_tflops = 0;     // FP32 (not TF32)
  double bandwidth_gbps = 0;  // memory bandwidth, GB/s
  std::string_view source;    // datasheet and the figures it prints
};

// nullopt when no row matches |device_name| (case-insensitive).
std::optional<DevicePeak> FindDevicePeak(std::string_view device_name);

// Every row, most specific first (the health command's --device looks up a
// product name too).
std::span<const DevicePeak> AllDevicePeaks();

// The peak of |peak| for one operand type ("c10::BFloat16", "DT_BF16",
// "float"...); nullopt for a type the row has no figure for.
std::optional<double> PeakTflopsFor(const DevicePeak& peak, std::string_view dtype);

// A type's normalised name: lower case without CANN's "dt_" or c10's
// "c10::" prefix ("bfloat16", "float16", "float"...), so "DT_BF16" and
// "BF16" compare equal only when spelt alike after it.
std::string NormalisedDtype(std::string_view dtype);

}  // namespace trainscope::analysis
