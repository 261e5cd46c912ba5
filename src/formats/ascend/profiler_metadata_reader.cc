#include "formats/ascend/profiler_metadata_reader.h"

#include <simdjson.h>

#include <cstdint>
#include <utility>

#include "core/mapped_file.h"
#include "formats/ascend/json_common.h"

namespace trainscope::formats {
namespace {

namespace od = simdjson::ondemand;

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

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
    } else if (EndsWith(name, "_size")) {
      info->parallel_sizes[name] = number;
    }
  }
  return simdjson::SUCCESS;
}

}  // namespace

Status ParseProfilerMetadata(std::string_view json, const std::string& file_label,
                             model::CaptureInfo* info) {
  return ForEachTopLevelJsonField(json, file_label, [&](std::string_view key, od::value value) {
    if (key != "ENV_VARIABLES" && key != "distributed_args") return simdjson::SUCCESS;
    od::object object;
    if (auto error = value.get_object().get(object)) return error;
    return key == "ENV_VARIABLES" ? ReadEnv(object, info) : ReadDistributedArgs(object, info);
  });
}

Status ReadProfilerMetadataFile(const std::string& path, model::CaptureInfo* info) {
  TS_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  return ParseProfilerMetadata(file.data(), path, info);
}

}  // namespace trainscope::formats
