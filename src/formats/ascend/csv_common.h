// Plumbing shared by the Ascend file readers: mapping a file for a parser.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace trainscope::formats {

// Maps |path| and runs |parse| over its bytes (the file stays mapped only for
// the call; parsers must copy or intern what they keep).
Status ParseMappedFile(const std::string& path,
                       const std::function<Status(std::string_view data)>& parse);

}  // namespace trainscope::formats
