#include "model/memory.h"

#include "core/enum_names.h"

namespace trainscope::model {
namespace {

// Spelled as memory_record.csv's Component column; anything else is kOther.
constexpr EnumNames<MemoryComponent, 5> kComponentNames{
    {{
        {MemoryComponent::kPta, "PTA"},
        {MemoryComponent::kGe, "GE"},
        {MemoryComponent::kPtaGe, "PTA+GE"},
        {MemoryComponent::kApp, "APP"},
        {MemoryComponent::kWorkspace, "WORKSPACE"},
    }},
    "other"};

}  // namespace

MemoryComponent MemoryComponentFromName(std::string_view name) {
  return kComponentNames.FromName(name).value_or(MemoryComponent::kOther);
}

std::string_view MemoryComponentName(MemoryComponent component) {
  return kComponentNames.Name(component);
}

}  // namespace trainscope::model
