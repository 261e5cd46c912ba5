// Shape rules for matrix multiplications (issue 13 item 2): Ascend's Cube
// unit loads its operands in 512-byte blocks, so a matmul whose inputs'
// innermost axis is not a multiple of 512 bytes (256 fp16/bf16 elements)
// pads every load (the rule of Ascend's own advisor).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/rank_profile.h"

namespace trainscope::analysis {

// Whether every input's innermost axis of |shapes| ("4096,1000;1000,4096")
// with |dtypes| ("DT_BF16;DT_BF16") is a multiple of 512 bytes (256
// elements where the type is unknown). nullopt when the shapes cannot be
// read. |unaligned_axis| gets the first offending axis length.
std::optional<bool> InnerAxesAligned(std::string_view shapes, std::string_view dtypes,
                                     int64_t* unaligned_axis = nullptr);

struct UnalignedMatmuls {
  int64_t kernels = 0;  // matmul kernels with an unaligned inner axis
  int64_t total_ns = 0;
  int64_t matmul_ns = 0;  // all matmul kernels with readable shapes
  std::string top_type;   // the costliest unaligned shape: op type, shapes, dtypes
  std::string top_shapes;
  std::string top_dtypes;
  int64_t top_axis = 0;
};

// Over the matmul kernels (op type containing "matmul") of |step| that
// carry input shapes; nullopt when none does (no shapes in the profile).
std::optional<UnalignedMatmuls> FindUnalignedMatmuls(const model::RankProfile& profile,
                                                     int32_t step);

}  // namespace trainscope::analysis
