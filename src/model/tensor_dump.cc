#include "model/tensor_dump.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace trainscope::model {
namespace {

struct TypeRow {
  ElementType type;
  std::string_view name;
  size_t bytes;
  bool floating;
};

constexpr std::array<TypeRow, 13> kTypes = {{
    {ElementType::kF32, "float32", 4, true},
    {ElementType::kF64, "float64", 8, true},
    {ElementType::kF16, "float16", 2, true},
    {ElementType::kBf16, "bfloat16", 2, true},
    {ElementType::kI8, "int8", 1, false},
    {ElementType::kU8, "uint8", 1, false},
    {ElementType::kI16, "int16", 2, false},
    {ElementType::kU16, "uint16", 2, false},
    {ElementType::kI32, "int32", 4, false},
    {ElementType::kU32, "uint32", 4, false},
    {ElementType::kI64, "int64", 8, false},
    {ElementType::kU64, "uint64", 8, false},
    {ElementType::kBool, "bool", 1, false},
}};

const TypeRow* Find(ElementType type) {
  for (const TypeRow& row : kTypes) {
    if (row.type == type) return &row;
  }
  return nullptr;
}

}  // namespace

std::string_view ElementTypeName(ElementType type) {
  const TypeRow* row = Find(type);
  return row ? row->name : "unknown";
}

size_t ElementBytes(ElementType type) {
  const TypeRow* row = Find(type);
  return row ? row->bytes : 0;
}

bool IsFloating(ElementType type) {
  const TypeRow* row = Find(type);
  return row != nullptr && row->floating;
}

ElementType ElementTypeFromName(std::string_view name) {
  // "torch.float32" (PyTorch), "Float32" (MindSpore), "float32" (numpy).
  if (const size_t dot = name.rfind('.'); dot != std::string_view::npos)
    name = name.substr(dot + 1);
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "float" || lower == "fp32") return ElementType::kF32;
  if (lower == "half" || lower == "fp16") return ElementType::kF16;
  if (lower == "double") return ElementType::kF64;
  if (lower == "bf16") return ElementType::kBf16;
  if (lower == "long") return ElementType::kI64;
  if (lower == "int") return ElementType::kI32;
  for (const TypeRow& row : kTypes) {
    if (row.name == lower) return row.type;
  }
  return ElementType::kUnknown;
}

}  // namespace trainscope::model
