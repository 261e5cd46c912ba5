#include "analysis/common/collective_groups.h"

#include <cctype>

namespace trainscope::analysis {

uint64_t HcclGroupHash(std::string_view hccl_name) {
  uint32_t h29 = 0;
  uint32_t h131 = 0;
  for (char c : hccl_name) {
    const auto byte = static_cast<uint32_t>(static_cast<unsigned char>(c));
    h29 = h29 * 29 + byte;
    h131 = h131 * 131 + byte;
  }
  return (static_cast<uint64_t>(h29) << 32) | h131;
}

namespace {

// The three digits after "__" in an HCCL op name, "" when absent.
std::string_view GroupSuffix(std::string_view name) {
  const size_t at = name.find("__");
  if (at == std::string_view::npos || name.size() < at + 5) return {};
  const std::string_view digits = name.substr(at + 2, 3);
  for (char c : digits) {
    if (std::isdigit(static_cast<unsigned char>(c)) == 0) return {};
  }
  const size_t after = at + 5;
  if (after < name.size() && name[after] != '_') return {};
  return digits;
}

}  // namespace

CollectiveGroups::CollectiveGroups(const model::CaptureInfo& info) {
  for (const model::CaptureInfo::ParallelGroup& group : info.parallel_groups) {
    if (group.hccl_name.empty() || group.name.empty()) continue;
    std::string hash = std::to_string(HcclGroupHash(group.hccl_name));
    std::string suffix = hash.size() >= 3 ? hash.substr(hash.size() - 3) : hash;
    auto [it, inserted] = kind_by_suffix_.try_emplace(std::move(suffix), group.name);
    if (!inserted && it->second != group.name) it->second.clear();
  }
}

std::string_view CollectiveGroups::KindOf(std::string_view name) const {
  if (kind_by_suffix_.empty()) return {};
  const std::string_view suffix = GroupSuffix(name);
  if (suffix.empty()) return {};
  auto it = kind_by_suffix_.find(std::string(suffix));
  return it == kind_by_suffix_.end() ? std::string_view() : std::string_view(it->second);
}

}  // namespace trainscope::analysis
