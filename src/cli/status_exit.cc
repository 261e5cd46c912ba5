#include "cli/status_exit.h"

#include <fmt/format.h>

#include "cli/app.h"

namespace trainscope::cli {

int ReportError(const Status& status) {
  fmt::print(stderr, "trainscope: error: {}\n", status.message());
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
