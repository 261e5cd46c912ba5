#include "core/string_pool.h"

#include <cstring>

namespace trainscope {

StringPool::StringPool() {
  views_.emplace_back();
  index_.emplace(std::string_view(), kEmpty);
}

std::string_view StringPool::Store(std::string_view text) {
  if (text.size() > kBlockSize / 4) {
    // Large strings get their own block so the shared block is not wasted.
    blocks_.push_back(std::make_unique<char[]>(text.size()));
    std::memcpy(blocks_.back().get(), text.data(), text.size());
    return std::string_view(blocks_.back().get(), text.size());
  }
  if (current_block_ == nullptr || block_used_ + text.size() > kBlockSize) {
    blocks_.push_back(std::make_unique<char[]>(kBlockSize));
    current_block_ = blocks_.back().get();
    block_used_ = 0;
  }
  char* dest = current_block_ + block_used_;
  if (!text.empty()) std::memcpy(dest, text.data(), text.size());
  block_used_ += text.size();
  return std::string_view(dest, text.size());
}

StringId StringPool::Intern(std::string_view text) {
  auto found = index_.find(text);
  if (found != index_.end()) return found->second;
  std::string_view stored = Store(text);
  auto id = static_cast<StringId>(views_.size());
  views_.push_back(stored);
  index_.emplace(stored, id);
  return id;
}

StringId StringPool::Find(std::string_view text) const {
  auto found = index_.find(text);
  return found == index_.end() ? kNotInterned : found->second;
}

}  // namespace trainscope
