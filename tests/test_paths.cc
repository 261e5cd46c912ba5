#include "test_paths.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

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

std::string ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string SynthRankDir(const std::string& job, int rank) {
  const std::string marker = "_rank" + std::to_string(rank) + "_";
  for (const auto& entry : std::filesystem::directory_iterator(job)) {
    const std::string name = entry.path().filename().string();
    if (name.find(marker) != std::string::npos && name.ends_with("_ascend_pt"))
      return entry.path().string();
  }
  return "";
}

std::string SynthOutputFile(const std::string& job, int rank, const std::string& file) {
  return SynthRankDir(job, rank) + "/ASCEND_PROFILER_OUTPUT/" + file;
}

}  // namespace trainscope::testing
