#pragma once

#include "core/status.h"

namespace trainscope::cli {

// Prints "trainscope: error: <message>" on stderr and returns the exit code
// for |status|: 2 for unusable input or usage, 1 for everything else.
int ReportError(const Status& status);

}  // namespace trainscope::cli
