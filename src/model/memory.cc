#include "model/memory.h"

#include <array>
#include <utility>

namespace trainscope::model {
namespace {

constexpr std::array<std::pair<MemoryComponent, std::string_view>, 6> kComponentNames = {{
    {MemoryComponent::kPta, "PTA"},
    {MemoryComponent::kGe, "GE"},
    {MemoryComponent::kPtaGe, "PTA+GE"},
    {MemoryComponent::kApp, "APP"},
    {MemoryComponent::kWorkspace, "WORKSPACE"},
    {MemoryComponent::kOther, "other"},
}};

}  // namespace

MemoryComponent MemoryComponentFromName(std::string_view name) {
  for (const auto& [component, text] : kComponentNames) {
    if (component != MemoryComponent::kOther && name == text) return component;
  }
  return MemoryComponent::kOther;
}

std::string_view MemoryComponentName(MemoryComponent component) {
  for (const auto& [value, text] : kComponentNames) {
    if (value == component) return text;
  }
  return "other";
}

}  // namespace trainscope::model
