#include "test_paths.h"

#include <atomic>
#include <cstdlib>
#include <filesystem>

#include <unistd.h>

namespace trainscope::testing {

std::string CorpusDir() {
  if (const char* env = std::getenv("TRAINSCOPE_CORPUS")) return env;
  std::filesystem::path dir(TRAINSCOPE_DEFAULT_CORPUS_DIR);
  std::error_code ec;
  if (std::filesystem::is_directory(dir, ec)) return std::filesystem::canonical(dir, ec).string();
  return "";
}

std::string SourceDir() { return TRAINSCOPE_SOURCE_DIR; }
std::string DataDir() { return std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data"; }
std::string TrainscopeBinary() { return TRAINSCOPE_BINARY; }

std::string MakeTempDir(const std::string& tag) {
  static std::atomic<int> counter{0};
  auto dir = std::filesystem::temp_directory_path() /
             ("trainscope_" + tag + "_" + std::to_string(::getpid()) + "_" +
              std::to_string(counter.fetch_add(1)));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace trainscope::testing
