// The corpus inputs the corpus-wide tests run `analyze` on.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace trainscope::testing {

// The Ascend job that has both the .db export and the text files.
// The 4-rank Qwen3 job (CANN 8.3, Level2, text and .db exports).
inline constexpr const char* kQwenLevel2Job =
    "ascend/msinsight-st-qwen3-0.6b-4rank-level2-cann8.3.RC1";
inline constexpr const char* kMsinsightDbJob = "ascend/msinsight-pytorch-2rank-db-level1";

// Every Ascend job folder, every Kineto trace file; reference folders
// (HTA/TraceLens outputs, not profiles) are left out.
inline std::vector<std::string> CorpusInputs(const std::string& corpus) {
  namespace fs = std::filesystem;
  auto ends_with = [](const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  std::vector<std::string> inputs;
  if (fs::is_directory(corpus + "/ascend")) {
    for (const auto& entry : fs::directory_iterator(corpus + "/ascend")) {
      if (entry.is_directory()) inputs.push_back(entry.path().string());
    }
  }
  for (auto it = fs::recursive_directory_iterator(corpus + "/kineto");
       it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() && name.find("reference") != std::string::npos) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && (ends_with(name, ".json") || ends_with(name, ".json.gz")))
      inputs.push_back(it->path().string());
  }
  std::sort(inputs.begin(), inputs.end());
  return inputs;
}

}  // namespace trainscope::testing
