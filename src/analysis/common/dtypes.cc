#include "analysis/common/dtypes.h"

#include <string>

#include "core/rule_file.h"

namespace trainscope::analysis {

std::optional<int> ElementBytes(std::string_view dtype) {
  std::string t = AsciiLower(dtype);
  if (t.starts_with("dt_")) t.erase(0, 3);    // CANN's DT_BF16
  if (t.starts_with("c10::")) t.erase(0, 5);  // Kineto's "Input type": c10::BFloat16
  for (std::string_view one : {"unsigned char", "signed char"}) {
    if (t == one) return 1;
  }
  if (t == "short int") return 2;
  if (t == "long int" || t == "long long int" || t == "complex<float>") return 8;
  for (std::string_view one : {"int8", "uint8", "bool", "char", "byte", "hifloat8"}) {
    if (t == one) return 1;
  }
  if (t.starts_with("float8")) return 1;  // Float8_e4m3fn, FLOAT8_E5M2
  // HCCL's own names (ENUM_HCCL_DATA_TYPE, trace_view.json "data_type"):
  // BFP16, UINT16, UINT32, UINT64, FP64, INT128.
  if (t == "int128") return 16;
  for (std::string_view two :
       {"bf16", "bfloat16", "bfp16", "float16", "fp16", "half", "int16", "uint16", "short"}) {
    if (t == two) return 2;
  }
  for (std::string_view four : {"float", "float32", "fp32", "int", "int32", "uint32"}) {
    if (t == four) return 4;
  }
  for (std::string_view eight :
       {"double", "float64", "fp64", "int64", "uint64", "long", "complexfloat"}) {
    if (t == eight) return 8;
  }
  return std::nullopt;
}

}  // namespace trainscope::analysis
