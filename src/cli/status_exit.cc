#include "cli/status_exit.h"

#include <fmt/format.h>

#include "cli/app.h"
#include "cli/stdout_writer.h"

namespace trainscope::cli {

int ReportError(const Status& status) {
  WriteStderr(fmt::format("trainscope: error: {}\n", status.message()));
  switch (status.code()) {
    case StatusCode::kInvalidInput:
    case StatusCode::kNotFound:
    case StatusCode::kUsage:
      return kExitUnusableInput;
    default:
      return kExitFailure;
  }
}

}  // namespace trainscope::cli
