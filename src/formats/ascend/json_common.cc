#include "formats/ascend/json_common.h"

#include <fmt/format.h>

namespace trainscope::formats {

Status JsonError(const std::string& label, simdjson::error_code error) {
  return InvalidInput(fmt::format("{}: invalid JSON ({})", label, simdjson::error_message(error)));
}

simdjson::error_code JsonValueToString(simdjson::ondemand::value value, std::string* out) {
  simdjson::ondemand::json_type type;
  if (auto error = value.type().get(type)) return error;
  if (type == simdjson::ondemand::json_type::string) {
    std::string_view text;
    if (auto error = value.get_string().get(text)) return error;
    out->assign(text);
    return simdjson::SUCCESS;
  }
  if (type == simdjson::ondemand::json_type::null) {
    out->clear();
    return simdjson::SUCCESS;
  }
  std::string_view raw = value.raw_json_token();
  while (!raw.empty() &&
         (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t')) {
    raw.remove_suffix(1);
  }
  out->assign(raw);
  return simdjson::SUCCESS;
}

simdjson::error_code ForEachJsonField(simdjson::ondemand::object object,
                                      const JsonFieldFn& on_field) {
  for (auto field_result : object) {
    simdjson::ondemand::field field;
    if (auto error = std::move(field_result).get(field)) return error;
    std::string_view key;
    if (auto error = field.unescaped_key().get(key)) return error;
    if (auto error = on_field(key, field.value())) return error;
  }
  return simdjson::SUCCESS;
}

Status ForEachTopLevelJsonField(std::string_view json, const std::string& label,
                                const JsonFieldFn& on_field) {
  simdjson::padded_string padded(json.data(), json.size());
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  if (auto error = parser.iterate(padded).get(doc)) return JsonError(label, error);
  simdjson::ondemand::object root;
  if (auto error = doc.get_object().get(root)) return JsonError(label, error);
  if (auto error = ForEachJsonField(root, on_field)) return JsonError(label, error);
  return Status::Ok();
}

}  // namespace trainscope::formats
