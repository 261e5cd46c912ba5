#include "formats/ascend/profiler_metadata_reader.h"

#include <simdjson.h>

#include <cstdint>
#include <utility>

#include "core/mapped_file.h"
#include "formats/ascend/json_common.h"

namespace trainscope::formats {
namespace {

namespace od = simdjson::ondemand;

simdjson::error_code ReadEnv(od::object object, model::CaptureInfo* info) {
  for (auto field_result : object) {
    od::field field;
    if (auto error = std::move(field_result).get(field)) return error;
    std::string_view key;
    if (auto error = field.unescaped_key().get(key)) return error;
    std::string name(key);
    std::string value;
    if (auto error = JsonValueToString(field.value(), &value)) return error;
    info->env[name] = std::move(value);
  }
  return simdjson::SUCCESS;
}

simdjson::error_code ReadDistributedArgs(od::object object, model::CaptureInfo* info) {
  for (auto field_result : object) {
    od::field field;
    if (auto error = std::move(field_result).get(field)) return error;
    std::string_view key;
    if (auto error = field.unescaped_key().get(key)) return error;
    std::string name(key);
    od::value value = field.value();
    od::json_type type;
    if (auto error = value.type().get(type)) return error;
    if (type != od::json_type::number) continue;  // sequence_parallel etc.
    int64_t number = 0;
    if (value.get_int64().get(number)) continue;  // a float size is not a size
    if (name == "world_size") {
      if (number > 0 && number <= INT32_MAX) info->world_size = static_cast<int32_t>(number);
    } else if (name.ends_with("_size")) {
      info->parallel_sizes[name] = number;
    }
  }
  return simdjson::SUCCESS;
}

// One member of a parallel_group_info group; a value of another type is
// left out.
simdjson::error_code ReadGroupMember(od::field member, model::CaptureInfo::ParallelGroup* out) {
  std::string_view key;
  if (auto error = member.unescaped_key().get(key)) return error;
  if (key == "group_name") {
    std::string_view name;
    if (!member.value().get_string().get(name)) out->name = std::string(name);
  } else if (key == "group_rank") {
    int64_t rank = 0;
    if (!member.value().get_int64().get(rank) && rank >= 0 && rank <= INT32_MAX) {
      out->group_rank = static_cast<int32_t>(rank);
    }
  } else if (key == "global_ranks") {
    od::array ranks;
    if (member.value().get_array().get(ranks)) return simdjson::SUCCESS;
    for (auto rank_result : ranks) {
      int64_t rank = 0;
      if (!rank_result.get_int64().get(rank) && rank >= 0 && rank <= INT32_MAX) {
        out->global_ranks.push_back(static_cast<int32_t>(rank));
      }
    }
  }
  return simdjson::SUCCESS;
}

// parallel_group_info: {"group_name_N": {"group_name": "pp", "group_rank": 0,
// "global_ranks": [0, 2]}, ...}. A group without a name is not kept.
simdjson::error_code ReadGroups(od::object object, model::CaptureInfo* info) {
  for (auto field_result : object) {
    od::field field;
    if (auto error = std::move(field_result).get(field)) return error;
    model::CaptureInfo::ParallelGroup out;
    std::string_view hccl_name;
    if (auto error = field.unescaped_key().get(hccl_name)) return error;
    out.hccl_name = std::string(hccl_name);
    od::object group;
    if (field.value().get_object().get(group)) continue;
    for (auto member_result : group) {
      od::field member;
      if (auto error = std::move(member_result).get(member)) return error;
      if (auto error = ReadGroupMember(std::move(member), &out)) return error;
    }
    if (!out.name.empty()) info->parallel_groups.push_back(std::move(out));
  }
  return simdjson::SUCCESS;
}

}  // namespace

Status ParseProfilerMetadata(std::string_view json, const std::string& file_label,
                             model::CaptureInfo* info) {
  return ForEachTopLevelJsonField(json, file_label, [&](std::string_view key, od::value value) {
    if (key != "ENV_VARIABLES" && key != "distributed_args" && key != "parallel_group_info") {
      return simdjson::SUCCESS;
    }
    od::object object;
    if (auto error = value.get_object().get(object)) return error;
    if (key == "parallel_group_info") return ReadGroups(object, info);
    return key == "ENV_VARIABLES" ? ReadEnv(object, info) : ReadDistributedArgs(object, info);
  });
}

Status ReadProfilerMetadataFile(const std::string& path, model::CaptureInfo* info) {
  TS_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  return ParseProfilerMetadata(file.data(), path, info);
}

}  // namespace trainscope::formats
