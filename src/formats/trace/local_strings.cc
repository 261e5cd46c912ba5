#include "formats/trace/local_strings.h"

#include <algorithm>
#include <functional>
#include <string>
#include <utility>

#include "core/numbers.h"
#include "formats/trace/timeline_builder.h"

namespace trainscope::formats::trace {

namespace {
constexpr size_t kInitialSlots = 1024;  // a chunk has a few hundred distinct strings
}  // namespace

uint64_t LocalStrings::Hash(std::string_view text) {
  return std::hash<std::string_view>{}(text)*0x9E3779B97F4A7C15ULL;
}

void LocalStrings::Clear() {
  views_.assign(1, std::string_view());
  owned_.clear();
  hashes_.assign(1, Hash(std::string_view()));
  if (slots_.size() != kInitialSlots) slots_.resize(kInitialSlots);
  std::fill(slots_.begin(), slots_.end(), 0u);
  mask_ = kInitialSlots - 1;
}

void LocalStrings::Grow() {
  slots_.assign(slots_.size() * 2, 0u);
  mask_ = slots_.size() - 1;
  for (uint32_t id = 1; id < views_.size(); ++id) {
    size_t i = static_cast<size_t>(hashes_[id] >> 20) & mask_;
    while (slots_[i] != 0) i = (i + 1) & mask_;
    slots_[i] = id + 1;
  }
}

uint32_t LocalStrings::InternCopy(std::string text) {
  if (text.empty()) return 0;
  owned_.push_back(std::move(text));
  return Intern(owned_.back());
}

uint32_t LocalStrings::Intern(std::string_view text) {
  if (text.empty()) return 0;
  const uint64_t h = Hash(text);
  for (size_t i = static_cast<size_t>(h >> 20) & mask_;; i = (i + 1) & mask_) {
    uint32_t slot = slots_[i];
    if (slot == 0) {
      auto id = static_cast<uint32_t>(views_.size());
      views_.push_back(text);
      hashes_.push_back(h);
      slots_[i] = id + 1;
      // Load factor <= 0.5 keeps probes short.
      if (views_.size() * 2 > slots_.size()) Grow();
      return id;
    }
    uint32_t id = slot - 1;
    if (hashes_[id] == h && views_[id] == text) return id;
  }
}

const std::vector<StringId>& LocalStrings::MapInto(StringPool* pool) {
  global_.resize(views_.size());
  global_[0] = StringPool::kEmpty;
  for (size_t id = 1; id < views_.size(); ++id) global_[id] = pool->Intern(views_[id]);
  return global_;
}

int64_t LocalThreadId(std::string_view raw, LocalStrings* strings) {
  if (std::optional<int64_t> v = ParseIdToken(raw)) return *v;
  return model::SyntheticThreadId(strings->Intern(TrimField(raw)));
}

}  // namespace trainscope::formats::trace
