#include "formats/ascend/ascend_importer.h"

#include <filesystem>

#include "formats/ascend/ascend_rank_loader.h"

namespace trainscope::formats {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kRankDirSuffix = "_ascend_pt";

SniffVerdict Sniff(const std::string& path, bool /*named*/) {
  const fs::path dir(path);
  const fs::path output = dir / "ASCEND_PROFILER_OUTPUT";
  if (PresentInAnyForm(output / "kernel_details.csv") ||
      PresentInAnyForm(output / "step_trace_time.csv")) {
    return {100, {}};
  }
  if (dir.filename().string().ends_with(kRankDirSuffix)) return {10, {}};
  return {};
}

Result<model::RankProfile> Load(const std::string& path, const ImportOptions& options) {
  return LoadAscendRank(path, options.threads);
}

}  // namespace

const Importer kAscendTextImporter = {
    "ascend-text",
    "torch_npu rank directory (*_ascend_pt) with ASCEND_PROFILER_OUTPUT CSV/JSON (text export)",
    InputShape::kDirectory,
    ImportScope::kRank,
    Sniff,
    Load,
};

}  // namespace trainscope::formats
