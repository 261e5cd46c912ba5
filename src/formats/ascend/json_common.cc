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

}  // namespace trainscope::formats
