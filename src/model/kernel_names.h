// Two names for one GPU kernel: the op type tables show, and the normalised
// form that rules match.
//
// A Kineto kernel name carries its template arguments, and they are what
// tells two instances of one template apart (every CUTLASS GEMM is a
// "cutlass::device_kernel<...>", every PyTorch pointwise op an
// "at::native::vectorized_elementwise_kernel<...>"). The op type keeps a
// compacted form of those arguments so that two different kernels never
// share a row or a finding; family rules and fingerprints match on the
// normalised form (template arguments and parameters dropped), so one rule
// still covers the whole template. docs/timelines.md, "Kernel names".
#pragma once

#include <string>
#include <string_view>

namespace trainscope::model {

// GPU kernel name -> normalised name: drops a leading "void ", template
// arguments and the parameter list ("void at::native::foo<float, 4>(int)" ->
// "at::native::foo"); "(anonymous namespace)" is kept.
std::string_view ShortKernelName(std::string_view name);

// Op type -> the normalised form rules match: ShortKernelName, and the
// "#hash" identity suffix of KernelOpType dropped. The identity on op types
// without '<', '(' or '#' (Ascend types, cuDNN/cuBLAS names).
std::string_view NormalisedOpType(std::string_view op_type);

// GPU kernel name -> op type: ShortKernelName plus the template arguments,
// compacted (namespace qualifiers and spaces dropped). Arguments longer than
// kMaxKernelArgsChars keep their first part, "...", and "#" + 6 hex digits of
// a hash of the full name, so the abbreviation stays distinct:
//   "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>,
//    at::detail::Array<char*, 1> >(int, ...)"
//   -> "at::native::vectorized_elementwise_kernel<4,FillFunctor<float>,Array<char*,1>>"
// Names without template arguments give ShortKernelName.
std::string KernelOpType(std::string_view name);

// |op_type| + "#" + the hash of |name|: what a trace's reader uses when two
// different names would otherwise give one op type (overloads that differ in
// their parameters only, arguments that differ only in qualifiers).
std::string WithNameHash(std::string_view op_type, std::string_view name);

inline constexpr size_t kMaxKernelArgsChars = 48;

}  // namespace trainscope::model
