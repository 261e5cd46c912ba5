#include "model/tensor_descriptions.h"

namespace trainscope::model {

size_t TensorDescriptions::Hash::operator()(const TensorDescription& d) const {
  // The four 32-bit ids folded in turn with the golden-ratio multiplier (a
  // rank has a few thousand distinct sets at most: any spread will do).
  uint64_t h = d.input_shapes;
  h = h * 0x9E3779B97F4A7C15ULL + d.input_dtypes;
  h = h * 0x9E3779B97F4A7C15ULL + d.output_shapes;
  h = h * 0x9E3779B97F4A7C15ULL + d.output_dtypes;
  return static_cast<size_t>(h ^ (h >> 29));
}

TensorDescriptions::TensorDescriptions() : entries_(1) {
  ids_.emplace(TensorDescription{}, kNoTensors);
}

TensorDescriptionId TensorDescriptions::Intern(const TensorDescription& description) {
  // Slot ids start as kNoTensors, whose description is the empty one: an
  // unused slot answers only for it, and rightly.
  CacheSlot& slot = cache_[Hash{}(description) % kCacheSlots];
  if (slot.description == description) return slot.id;
  const auto [it, inserted] =
      ids_.try_emplace(description, static_cast<TensorDescriptionId>(entries_.size()));
  if (inserted) entries_.push_back(description);
  slot = CacheSlot{description, it->second};
  return it->second;
}

}  // namespace trainscope::model
