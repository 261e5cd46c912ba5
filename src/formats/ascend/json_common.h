// Small helpers shared by the simdjson (ondemand) readers of profiler JSON.
#pragma once

#include <simdjson.h>

#include <string>

#include "core/status.h"

namespace trainscope::formats {

// InvalidInput "<label>: invalid JSON (<simdjson message>)".
Status JsonError(const std::string& label, simdjson::error_code error);

// Strings as their text, numbers/bools as written, null as "".
simdjson::error_code JsonValueToString(simdjson::ondemand::value value, std::string* out);

}  // namespace trainscope::formats
