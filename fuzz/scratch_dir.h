// A fuzzer's scratch directory: <temp>/<prefix><pid>, made on first use and
// removed when the process exits normally. Every fuzz run is a new process,
// so directories left behind piled up in /tmp, one per run. Only a
// directory this process made is removed: one that was already there (a
// crashed run's, under a reused pid) is left as it was.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace trainscope::fuzz {

inline std::filesystem::path ScratchDir(std::string_view prefix) {
  namespace fs = std::filesystem;
  static fs::path made;  // the directory to remove at exit; empty: none
  const fs::path dir =
      fs::temp_directory_path() / (std::string(prefix) + std::to_string(::getpid()));
  std::error_code error;
  if (made.empty() && fs::create_directory(dir, error)) {
    made = dir;
    std::atexit([] {
      std::error_code ignored;
      fs::remove_all(made, ignored);
    });
  }
  return dir;
}

}  // namespace trainscope::fuzz
