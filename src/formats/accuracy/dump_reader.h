// Reads one side of `trainscope accuracy` (docs/accuracy.md) into a
// model::TensorDump:
//   - an msprobe dump: a dump.json (PyTorch or MindSpore; task statistics or
//     tensor; level L0, L1 or mix), given as the file, its rank folder, or a
//     dump_path with step*/rank* folders (one step and rank chosen); tensor
//     mode's .npy files are read from dump_tensor_data/ beside it, and
//     construct.json, when present, gives each API its module path;
//   - a folder of NumPy .npy / .npz files, matched by relative path.
// Every tensor entry is a row of a RowLedger: used, or skipped with a reason.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "model/tensor_dump.h"

namespace trainscope::formats {

struct DumpReadOptions {
  bool uint16_as_bf16 = false;  // --bf16: every uint16 array is bfloat16
  std::optional<int64_t> step;  // msprobe step*/rank* layout: which step ...
  std::optional<int64_t> rank;  // ... and which rank (default: the lowest)
  uint64_t max_inflated_member = uint64_t{8} << 30;
};

Result<model::TensorDump> ReadTensorDump(const std::string& path, const DumpReadOptions& options);

// dump.json bytes (tests, fuzzing): |dir| is where dump_tensor_data/ and
// construct.json would be ("" reads no tensor files).
Result<model::TensorDump> ParseMsprobeDump(std::string_view json, const std::string& label,
                                           const std::string& dir, const DumpReadOptions& options);

// "Functional.linear.3.forward" -> "layers.1.mlp" from construct.json's
// parent links, exposed for tests: the Module name with its class and
// counter cut ("Module.layers.1.mlp.MLP.forward.0" -> "layers.1.mlp").
std::string ModulePathOfModuleName(std::string_view module_name);

}  // namespace trainscope::formats
