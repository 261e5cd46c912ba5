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
#include <vector>

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

// A kernel name as a reader wants it: an Itanium-mangled name ("_ZN...",
// what ROCm and some CUDA libraries record) demangled, every other name as
// it is. When the C++ runtime cannot demangle it (NVCC and CK names the
// libstdc++ demangler rejects), a readable outline of it: the qualified
// name, its first template argument and the integer tuples it carries as
// shapes ("cutlass_cudnn_train::Kernel<ImplicitGemmConvolution, 128x128x32,
// ...>"). KernelOpType starts from this, so a trace's reader demangles
// once per distinct name.
std::string DemangledKernelName(std::string_view name);

// |name| shortened to at most |columns| columns (UTF-8 code points) for a
// table: its start up to the first '<' (what kind of kernel) and its tail
// (tile sizes, layout, "#hash" suffix: what tells instances of a template
// apart), the middle elided with "…". Unchanged when it fits.
std::string ElideName(std::string_view name, size_t columns);

// ElideName for the names of one table, so that two different names never
// print as one: where two shorten alike, each shows the part where the
// names first differ between its start and tail ("Cijk_Alik_…MT128x224x64…
// WG32_8_1"), and where that is not enough a hash of the whole name.
// Equal names give equal texts.
std::vector<std::string> DistinctElidedNames(const std::vector<std::string>& names, size_t columns);

// Columns |text| takes: its UTF-8 code points.
size_t TextColumns(std::string_view text);

}  // namespace trainscope::model
