// TensorDescriptions: the shapes and dtypes of a kernel's inputs and outputs,
// each distinct set of four stored once per rank.
//
// kernel_details.csv and the .db export give every kernel four strings
// (input shapes, input dtypes, output shapes, output dtypes). They travel
// together (the shape rules and the gain model read them in pairs or all
// four) and a step repeats a few hundred sets millions of times, so a device
// event holds one 4-byte id of its set instead of four string ids: 12 bytes a
// row less on every input (docs/benchmarks.md, "A kernel's tensors in one
// column").
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/string_pool.h"

namespace trainscope::model {

struct TensorDescription {
  StringId input_shapes = StringPool::kEmpty;   // kernel_details.csv "4096,2048;2048,8192"
  StringId input_dtypes = StringPool::kEmpty;   // "FLOAT16;FLOAT16"
  StringId output_shapes = StringPool::kEmpty;  // "Output Shapes"
  StringId output_dtypes = StringPool::kEmpty;  // "Output Data Types"
  bool operator==(const TensorDescription&) const = default;
};

// Index into a TensorDescriptions; 0 is the description with no strings.
using TensorDescriptionId = uint32_t;
inline constexpr TensorDescriptionId kNoTensors = 0;

class TensorDescriptions {
 public:
  TensorDescriptions();

  // The id of |description|, added when new. Called once a kernel by the
  // readers: a direct-mapped cache answers most calls before the map.
  TensorDescriptionId Intern(const TensorDescription& description);
  const TensorDescription& operator[](TensorDescriptionId id) const { return entries_[id]; }
  size_t size() const { return entries_.size(); }

 private:
  struct Hash {
    size_t operator()(const TensorDescription& d) const;
  };
  struct CacheSlot {
    TensorDescription description;
    TensorDescriptionId id = kNoTensors;
  };
  static constexpr size_t kCacheSlots = 256;

  std::vector<TensorDescription> entries_;
  std::unordered_map<TensorDescription, TensorDescriptionId, Hash> ids_;
  std::vector<CacheSlot> cache_ = std::vector<CacheSlot>(kCacheSlots);
};

}  // namespace trainscope::model
