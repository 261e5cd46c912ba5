#include "cli/status_exit.h"

#include <fmt/format.h>

#include <string>
#include <string_view>

#include "cli/app.h"
#include "cli/stdout_writer.h"
#include "core/safe_text.h"

namespace trainscope::cli {

namespace {

// Every line of |message| at most kMaxErrorLine bytes: a message that quotes
// input (a bad line, a field) stays readable whatever the input holds.
constexpr size_t kMaxErrorLine = 2000;

std::string CapErrorLines(std::string_view message) {
  std::string out;
  while (!message.empty()) {
    const size_t end = message.find('\n');
    out += CappedQuote(message.substr(0, end), kMaxErrorLine);
    if (end == std::string_view::npos) break;
    out.push_back('\n');
    message.remove_prefix(end + 1);
  }
  return out;
}

}  // namespace

int ReportError(const Status& status) {
  // Messages quote file names and fields from profiles: control bytes in
  // them (ESC, BEL) must not reach the terminal raw.
  WriteStderr(fmt::format("trainscope: error: {}\n",
                          TerminalSafe(CapErrorLines(status.message()), /*keep_newlines=*/true)));
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
