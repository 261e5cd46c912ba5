// StringPool interns strings into compact 32-bit ids.
//
// Kernel names repeat thousands of times per step; rows store a StringId and
// the text lives once here. Views returned by Get() stay valid for the
// lifetime of the pool (storage is a list of fixed blocks that never moves).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace trainscope {

using StringId = uint32_t;

class StringPool {
 public:
  // Id 0 is always the empty string, so a default-initialised id is "none".
  static constexpr StringId kEmpty = 0;

  StringPool();
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;
  StringPool(StringPool&&) noexcept = default;
  StringPool& operator=(StringPool&&) noexcept = default;

  StringId Intern(std::string_view text);
  // Returns kNotInterned when |text| was never interned; never inserts.
  static constexpr StringId kNotInterned = UINT32_MAX;
  StringId Find(std::string_view text) const;
  std::string_view Get(StringId id) const { return views_[id]; }
  size_t size() const { return views_.size(); }

 private:
  std::string_view Store(std::string_view text);

  static constexpr size_t kBlockSize = size_t{64} * 1024;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* current_block_ = nullptr;  // the block small strings are appended to
  size_t block_used_ = kBlockSize;
  std::vector<std::string_view> views_;
  std::unordered_map<std::string_view, StringId> index_;
};

}  // namespace trainscope
