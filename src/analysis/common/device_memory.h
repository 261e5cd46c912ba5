// Device memory of the accelerators profiles name, for the headroom to the
// device's capacity (oom-risk) when the profile itself does not
// carry it (Kineto deviceProperties totalGlobalMem does; Ascend profiles
// name the chip only: the .db export's NPU_INFO). Each row is a vendor
// datasheet's HBM capacity (docs/findings.md, "Device memory"); HBM stacks
// are binary-sized, so "80 GB" is 80 GiB. The usable memory is a little
// less (the driver's context, ECC where enabled): the headroom from the
// table is an upper bound. A device not in the table (or a name that does
// not say which variant, e.g. plain "Ascend910B") has no capacity: unknown.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace trainscope::analysis {

struct DeviceMemory {
  std::string_view match;   // lower-case substring of the device name
  std::string_view device;  // the datasheet's product
  int64_t gib = 0;          // HBM capacity, GiB
  std::string_view source;  // datasheet and the figure it prints
};

// nullopt when no row matches |device_name| (case-insensitive).
std::optional<DeviceMemory> FindDeviceMemory(std::string_view device_name);

}  // namespace trainscope::analysis
