// Small helpers shared by the simdjson (ondemand) readers of profiler JSON.
#pragma once

#include <simdjson.h>

#include <functional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace trainscope::formats {

// InvalidInput "<label>: invalid JSON (<simdjson message>)".
Status JsonError(const std::string& label, simdjson::error_code error);

// Strings as their text, numbers/bools as written, null as "".
simdjson::error_code JsonValueToString(simdjson::ondemand::value value, std::string* out);

// Called with each key (unescaped) and value of an object, in document order;
// a non-SUCCESS return stops the walk and is returned.
using JsonFieldFn =
    std::function<simdjson::error_code(std::string_view key, simdjson::ondemand::value value)>;

// Walks the fields of |object| with |on_field|.
simdjson::error_code ForEachJsonField(simdjson::ondemand::object object,
                                      const JsonFieldFn& on_field);

// Parses |json| as an object and walks its top-level fields with |on_field|.
// Any error, of the syntax or from |on_field|, becomes JsonError(|label|, ...).
Status ForEachTopLevelJsonField(std::string_view json, const std::string& label,
                                const JsonFieldFn& on_field);

}  // namespace trainscope::formats
