#include "cli/status_exit.h"

#include <fmt/format.h>

#include "cli/app.h"
#include "cli/stdout_writer.h"
#include "core/safe_text.h"

namespace trainscope::cli {

int ReportError(const Status& status) {
  // Messages quote file names and fields from profiles: control bytes in
  // them (ESC, BEL) must not reach the terminal raw.
  WriteStderr(fmt::format("trainscope: error: {}\n",
                          TerminalSafe(status.message(), /*keep_newlines=*/true)));
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
