// Operator input shapes as profiles spell them, and what they determine:
// the FLOPs and bytes of one call (operator_efficiency),
// and the shape rule of Ascend's advisor: Ascend's Cube
// unit loads its operands in 512-byte blocks, so a matmul whose inputs'
// innermost axis is not a multiple of 512 bytes (256 fp16/bf16 elements)
// pads every load (the rule of Ascend's own advisor).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/common/tensor_shapes.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

// What one matmul call computes: C[batch, M, N] = A[batch, M, K] · B[batch,
// K, N], the operands found by their shared contraction axis (K), so a
// transposed operand (B as [N, K] in a linear layer, A as [K, M] in a weight
// gradient) reads right. When several axes could be K (square matrices, or
// two [tokens, hidden] operands of a weight gradient) the reading whose
// [M, N] is the output's shape wins where the output is known; otherwise
// the untransposed reading: A's last axis against B's first, then B
// transposed, then A transposed, then both.
struct MatmulCost {
  int64_t batch = 1;  // product of the broadcast leading axes (1 for grouped matmul)
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  size_t a = 0;  // operand indices of A and B (addmm / baddbmm: 1 and 2, after the bias)
  size_t b = 1;
  double flops = 0;  // 2·batch·M·N·K, + batch·M·N for addmm / baddbmm's added input
};

// nullopt when |op_type| is not a matmul (IsMatmulOp) or its shapes do not
// determine one (unknown operands, no shared axis, leading axes that do not
// broadcast). Grouped matmul (GroupedMatmul, grouped_mm): x [M, K] against
// the experts' weights [E, K, N]: each row goes through one expert, so E does
// not multiply.
// |outputs|, where known (kernel_details.csv "Output Shapes"), settles
// which axis is K when several could be.
std::optional<MatmulCost> MatmulCostOf(std::string_view op_type,
                                       const std::vector<OperandShape>& shapes,
                                       const std::vector<OperandShape>* outputs = nullptr);

// Bytes one call moves: every known operand's elements times its type's
// size, plus the output where the operator determines it (a matmul's
// batch·M·N in A's type; |output_included| says so). nullopt when an operand
// with elements has an unknown shape or type.
std::optional<double> BytesMoved(const std::vector<OperandShape>& shapes,
                                 const std::vector<std::string>& dtypes,
                                 const std::optional<MatmulCost>& matmul, bool* output_included);

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
