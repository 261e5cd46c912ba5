#include "formats/profile_discovery.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include <zlib.h>

#include "formats/ascend/profiler_info_reader.h"

namespace trainscope::formats {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kOutputDirName = "ASCEND_PROFILER_OUTPUT";
constexpr std::string_view kRankDirSuffix = "_ascend_pt";

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool IsFile(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

// A rank directory is named *_ascend_pt (torch_npu's naming) or, whatever
// its name, holds the parsed output we read (test fixtures, renamed copies).
bool IsRankDir(const fs::path& dir) {
  if (EndsWith(dir.filename().string(), kRankDirSuffix)) return true;
  const fs::path output = dir / kOutputDirName;
  return IsFile(output / "kernel_details.csv") || IsFile(output / "step_trace_time.csv");
}

int RankHint(const fs::path& rank_dir) {
  std::error_code ec;
  int hint = -1;
  for (fs::directory_iterator it(rank_dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::optional<int32_t> rank = RankFromProfilerInfoName(it->path().filename().string());
    if (rank && (hint < 0 || *rank < hint)) hint = *rank;
  }
  return hint;
}

// Kineto traces are recognised by content, not name: the first 256 KiB of
// the (inflated) file mention traceEvents or schemaVersion (some writers put
// a large "metadata" object first). Ascend's JSON
// files (trace_view.json, profiler_info) live inside rank dirs and are never
// sniffed.
bool IsKinetoTrace(const fs::path& path) {
  const std::string name = path.filename().string();
  if (!EndsWith(name, ".json") && !EndsWith(name, ".json.gz")) return false;
  gzFile file = gzopen(path.string().c_str(), "rb");  // reads plain files too
  if (file == nullptr) return false;
  std::string head(256 * 1024, '\0');
  int read = gzread(file, head.data(), static_cast<unsigned>(head.size()));
  gzclose(file);
  if (read <= 0) return false;
  std::string_view text(head.data(), static_cast<size_t>(read));
  return text.find("\"traceEvents\"") != std::string_view::npos ||
         text.find("\"schemaVersion\"") != std::string_view::npos;
}

ProfileLocation MakeTraceLocation(const fs::path& file) {
  ProfileLocation location;
  location.kind = ProfileKind::kKinetoTrace;
  location.path = file.lexically_normal().string();
  return location;
}

ProfileLocation MakeLocation(const fs::path& rank_dir) {
  ProfileLocation location;
  location.kind = ProfileKind::kAscendRank;
  location.path = rank_dir.lexically_normal().string();
  while (location.path.size() > 1 && location.path.back() == '/') location.path.pop_back();
  location.rank_hint = RankHint(rank_dir);
  return location;
}

}  // namespace

Result<std::vector<ProfileLocation>> DiscoverProfiles(const std::string& path) {
  std::error_code ec;
  fs::path root(path);
  if (!fs::exists(root, ec)) return NotFound(fmt::format("{}: no such file or directory", path));
  if (IsFile(root)) {
    // A file inside ASCEND_PROFILER_OUTPUT (e.g. kernel_details.csv): its rank.
    fs::path parent = root.parent_path();
    if (parent.filename() == kOutputDirName) return std::vector{MakeLocation(parent.parent_path())};
    if (IsKinetoTrace(root)) return std::vector{MakeTraceLocation(root)};
    return InvalidInput(fmt::format(
        "{}: not a profile this tool reads\nhint: pass a job directory, a *_ascend_pt rank "
        "directory, its ASCEND_PROFILER_OUTPUT directory, or a PyTorch profiler trace "
        "(.json / .json.gz with traceEvents)",
        path));
  }
  fs::path normalized = root.lexically_normal();
  if (normalized.filename().empty()) normalized = normalized.parent_path();
  if (normalized.filename() == kOutputDirName) {
    return std::vector{MakeLocation(normalized.parent_path())};
  }
  if (IsRankDir(normalized)) return std::vector{MakeLocation(normalized)};

  std::vector<ProfileLocation> found;
  fs::recursive_directory_iterator it(normalized, fs::directory_options::skip_permission_denied,
                                      ec);
  for (fs::recursive_directory_iterator end; !ec && it != end; it.increment(ec)) {
    if (!it->is_directory(ec)) {
      if (IsKinetoTrace(it->path())) found.push_back(MakeTraceLocation(it->path()));
      continue;
    }
    if (IsRankDir(it->path())) {
      found.push_back(MakeLocation(it->path()));
      // Rank dirs hold PROF_* raw data with thousands of files: no ranks in there.
      it.disable_recursion_pending();
    }
  }
  if (found.empty()) {
    return NotFound(fmt::format(
        "{}: no profile found\nhint: expected *_ascend_pt directories (or directories with "
        "ASCEND_PROFILER_OUTPUT/kernel_details.csv) or PyTorch profiler traces (.json / .json.gz) "
        "at any depth below it",
        path));
  }
  std::sort(found.begin(), found.end(), [](const ProfileLocation& a, const ProfileLocation& b) {
    const bool a_known = a.rank_hint >= 0;
    const bool b_known = b.rank_hint >= 0;
    if (a_known != b_known) return a_known;
    if (a.rank_hint != b.rank_hint) return a.rank_hint < b.rank_hint;
    return a.path < b.path;
  });
  return found;
}

}  // namespace trainscope::formats
