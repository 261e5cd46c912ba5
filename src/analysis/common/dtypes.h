// Bytes per element of a tensor data type, in the spellings profiles use:
// PyTorch's c10 ScalarType names in Kineto collective args (Float, BFloat16,
// Half, Float8_e4m3fn...) and record_shapes' "Input type" (c10::BFloat16,
// float, long int...), and CANN's in kernel_details.csv (DT_BF16,
// FLOAT16, FLOAT, INT8...), in any case. One table for both, so a type
// never has two sizes.
#pragma once

#include <optional>
#include <string_view>

namespace trainscope::analysis {

// nullopt when the type is not known.
std::optional<int> ElementBytes(std::string_view dtype);

}  // namespace trainscope::analysis
