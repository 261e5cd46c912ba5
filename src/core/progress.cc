#include "core/progress.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace trainscope {

Progress::Progress()
    : enabled_(::isatty(STDERR_FILENO) == 1 && std::getenv("TRAINSCOPE_NO_PROGRESS") == nullptr) {}

Progress::~Progress() { Done(); }

void Progress::Update(std::string_view message) {
  if (!enabled_) return;
  std::fprintf(stderr, "\r\033[K%.*s", static_cast<int>(message.size()), message.data());
  std::fflush(stderr);
  dirty_ = true;
}

void Progress::Done() {
  if (!enabled_ || !dirty_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  dirty_ = false;
}

}  // namespace trainscope
