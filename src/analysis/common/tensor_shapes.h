// Operator operand shapes and types as profiles spell them, and the bytes
// they hold: kernel_details.csv's "Input Shapes" / "Output Shapes"
// ("4096,2048;2048,8192": operands by ';', axes by ',') and record_shapes'
// "Input Dims" of a Kineto or trace_view.json host op ("[[4096, 2048],
// [2048, 8192]]", a JSON array of arrays). Used by the per-operator
// efficiency (step/operator_efficiency) and the fingerprint gain model
// (motifs/gain_model), so that both count a tensor's bytes alike.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainscope::analysis {

// One operand of an operator call. |known| is false where the spelling does
// not give plain dimensions (a tensor list, a dynamic -1 axis, text that is
// not a number). An empty |dims| is a scalar, a 0-dim tensor or an absent
// optional input: it moves no bytes worth counting.
struct OperandShape {
  bool known = false;
  std::vector<int64_t> dims;
};

// Both spellings above; nullopt when |text| is neither.
std::optional<std::vector<OperandShape>> ParseShapes(std::string_view text);

// The operands' types in both spellings: "DT_BF16;DT_BF16" and
// ["c10::BFloat16", "c10::BFloat16"] ("" where an operand has none).
std::vector<std::string> ParseDtypes(std::string_view text);

// Every operand's elements times its type's size; nullopt when an operand
// with elements has an unknown shape or type.
std::optional<double> OperandBytes(const std::vector<OperandShape>& shapes,
                                   const std::vector<std::string>& dtypes);

// OperandBytes of the spelt shapes and types; nullopt when they cannot be
// read.
std::optional<double> TensorListBytes(std::string_view shapes, std::string_view dtypes);

// Whether an operator is a matrix multiplication whose FLOPs its shapes
// determine: CANN's MatMul*, BatchMatMul*, GroupedMatmul*, and ATen's mm,
// addmm, bmm, baddbmm, matmul, linear, _scaled_mm (any case).
bool IsMatmulOp(std::string_view op_type);

// "aten::addmm" -> "addmm" (of a lower-case name); CANN names stay whole.
std::string_view AtenOpName(std::string_view lower);

}  // namespace trainscope::analysis
