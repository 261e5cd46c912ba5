#include "cli/stdout_writer.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cli/app.h"

namespace trainscope::cli {
namespace {

int g_stdout_errno = 0;  // the first write error; 0 = none

thread_local OutputCapture* t_capture = nullptr;  // this thread's innermost capture

}  // namespace

OutputCapture::OutputCapture(std::string* out, std::string* err)
    : previous_(t_capture), out_(out), err_(err) {
  t_capture = this;
}

OutputCapture::~OutputCapture() { t_capture = previous_; }

bool WriteStdout(std::string_view text) {
  if (t_capture != nullptr) {
    t_capture->out_->append(text);
    return true;
  }
  if (g_stdout_errno != 0) return false;
  if (text.empty()) return true;
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    g_stdout_errno = errno != 0 ? errno : EIO;
    return false;
  }
  return true;
}

void WriteStderr(std::string_view text) {
  if (t_capture != nullptr) {
    t_capture->err_->append(text);
    return;
  }
  if (!text.empty()) (void)!std::fwrite(text.data(), 1, text.size(), stderr);
}

int FinishStdout(int exit_code) {
  int err = g_stdout_errno;
  errno = 0;
  if (std::fflush(stdout) != 0 && err == 0) err = errno != 0 ? errno : EIO;
  if (std::ferror(stdout) && err == 0) err = EIO;
  g_stdout_errno = 0;
  std::clearerr(stdout);
  if (err == 0) return exit_code;
  WriteStderr(
      fmt::format("trainscope: error: writing to standard output: {}\n", std::strerror(err)));
  return exit_code == kExitSuccess ? kExitFailure : exit_code;
}

}  // namespace trainscope::cli
