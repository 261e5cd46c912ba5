// TensorDump: one side of an accuracy comparison (docs/accuracy.md): the
// tensors a run dumped, in execution order, each with what is known of it —
// statistics (msprobe's Max/Min/Mean/Norm), and where its elements lie when
// they were saved (a .npy file, or a member of a .npz archive).
//
// The elements are not read here: a TensorData names the file and the byte
// range, so the comparison maps the files it needs, two at a time, and never
// holds a whole dump in memory. Deflated .npz members are the exception: they
// are inflated at load time into |inflated|.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/row_ledger.h"

namespace trainscope::model {

// Element types a tensor file can hold. kBf16 is stored as 16 bits
// (numpy has no bfloat16: a uint16 array the user marks as bf16).
enum class ElementType : uint8_t {
  kF32,
  kF64,
  kF16,
  kBf16,
  kI8,
  kU8,
  kI16,
  kU16,
  kI32,
  kU32,
  kI64,
  kU64,
  kBool,
  kUnknown
};

std::string_view ElementTypeName(ElementType type);  // "float32", "bfloat16", ...
size_t ElementBytes(ElementType type);               // 0 for kUnknown
bool IsFloating(ElementType type);
// From a dump's dtype text: "torch.float32", "Float32", "float16", "bfloat16"...
ElementType ElementTypeFromName(std::string_view name);

struct TensorStats {
  std::optional<double> max, min, mean, norm;
  bool any() const { return max || min || mean || norm; }
};

// Where a tensor's elements are: |bytes| bytes at |offset| of |file|, or in
// |inflated| when set (a deflated .npz member).
struct TensorData {
  std::string file;
  uint64_t offset = 0;
  uint64_t bytes = 0;
  ElementType stored = ElementType::kUnknown;  // as the file stores it
  bool big_endian = false;
  bool fortran_order = false;
  std::shared_ptr<const std::string> inflated;
};

struct DumpTensor {
  std::string name;    // msprobe: "Functional.linear.3.forward.output.0"; folder: relative path
  std::string op;      // the call it belongs to: "Functional.linear.3.forward"
  std::string module;  // the enclosing module path when known ("layers.1.self_attn"), else ""
  std::string role;    // "input", "output", "parameter", "tensor"
  std::string dtype;   // as the dump spells it
  ElementType type = ElementType::kUnknown;
  std::vector<int64_t> shape;
  TensorStats stats;
  std::optional<TensorData> data;
  int64_t order = 0;  // position in execution order (0-based)
};

struct TensorDump {
  std::string root;                      // the path given
  std::string kind;                      // "msprobe" or "tensor folder"
  std::string task;                      // msprobe: "statistics" / "tensor"; else ""
  std::string level;                     // msprobe: "L0" / "L1" / "mix"; else ""
  std::string framework;                 // msprobe: "pytorch" / "mindspore"
  std::string selected;                  // msprobe folder layout: "step0/rank0" chosen, else ""
  std::vector<std::string> other_ranks;  // the same step's other rank (or proc) folders
  std::vector<DumpTensor> tensors;       // execution order
  std::vector<RowLedger> ledgers;        // one per file read (dump.json, each tensor file)
};

}  // namespace trainscope::model
