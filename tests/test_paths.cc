#include "test_paths.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string_view>
#include <vector>

namespace trainscope::testing {
namespace {

// Every directory MakeTempDir made, removed when the test process exits
// (each ctest test is its own process), so runs do not fill the temp dir:
// before this, synth jobs and exports of many runs had piled up to tens of
// GB. TRAINSCOPE_KEEP_TEMP=1 keeps them for a look after a failure.
class TempDirs {
 public:
  void Add(std::filesystem::path dir) {
    const std::lock_guard lock(mutex_);
    dirs_.push_back(std::move(dir));
  }
  TempDirs() = default;
  TempDirs(const TempDirs&) = delete;
  TempDirs& operator=(const TempDirs&) = delete;
  ~TempDirs() {
    const char* keep = std::getenv("TRAINSCOPE_KEEP_TEMP");
    if (keep != nullptr && std::string(keep) == "1") return;
    for (const auto& dir : dirs_) {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  }

 private:
  std::mutex mutex_;
  std::vector<std::filesystem::path> dirs_;
};

TempDirs& MadeDirs() {
  static TempDirs dirs;
  return dirs;
}

}  // namespace

std::string CorpusDir() {
  if (const char* env = std::getenv("TRAINSCOPE_CORPUS")) return env;
  std::filesystem::path dir(TRAINSCOPE_DEFAULT_CORPUS_DIR);
  std::error_code ec;
  if (std::filesystem::is_directory(dir, ec)) return std::filesystem::canonical(dir, ec).string();
  return "";
}

std::vector<std::string> CorpusKinetoTraces(const std::string& root) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    const std::string path = entry.path().string();
    if (!entry.is_regular_file() || path.find("_reference_runs") != std::string::npos) continue;
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".json") || name.ends_with(".json.gz")) out.push_back(path);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string SourceDir() { return TRAINSCOPE_SOURCE_DIR; }
// Literals joined by the preprocessor: GCC 12 warns (-Warray-bounds, a
// false positive) on std::string(literal) + literal once both are inlined
// into one unity batch.
std::string DataDir() { return TRAINSCOPE_SOURCE_DIR "/tests/data"; }
std::string TinyJob() { return TRAINSCOPE_SOURCE_DIR "/tests/data/ascend_tiny"; }
std::string TrainscopeBinary() { return TRAINSCOPE_BINARY; }

std::string MakeTempDir(const std::string& tag) {
  static std::atomic<int> counter{0};
  auto dir = std::filesystem::temp_directory_path() /
             ("trainscope_" + tag + "_" + std::to_string(::getpid()) + "_" +
              std::to_string(counter.fetch_add(1)));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  MadeDirs().Add(dir);
  return dir.string();
}

void WriteFileBytes(const std::filesystem::path& path, std::string_view bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) ADD_FAILURE() << "cannot write " << path;
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
