#include "cli/demo_dir.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>
#include <utility>

#include "cli/output_paths.h"
#include "core/atomic_write.h"
#include "synth/manifest.h"

namespace trainscope::cli {
namespace {

namespace fs = std::filesystem;

// The report demo writes by default; replaced like any report of ours.
constexpr const char* kDemoReport = "report.html";

Status Refuse(const std::string& dir, const std::string& why) {
  return UsageError(
      fmt::format("demo --out {}: {}\nhint: choose a new or empty directory with --out, or remove "
                  "its contents yourself; demo "
                  "only ever replaces a demo job it wrote there",
                  dir, why));
}

}  // namespace

Result<DemoDirPlan> InspectDemoDir(const std::string& dir) {
  DemoDirPlan plan;
  plan.dir = dir;
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno == ENOENT) return plan;
    return Refuse(dir, std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) return Refuse(dir, "exists and is not a directory");
  plan.exists = true;
  // A report a killed demo was writing there: its temporary file goes first.
  RemoveStaleTemporaries(dir);

  // Every entry, symlinks not followed: a symlink is never ours.
  std::vector<std::pair<std::string, char>> entries;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec);
  for (fs::recursive_directory_iterator end; !ec && it != end; it.increment(ec)) {
    struct stat entry {};
    char type = '?';
    if (::lstat(it->path().c_str(), &entry) == 0) {
      type = S_ISREG(entry.st_mode) ? 'f' : S_ISDIR(entry.st_mode) ? 'd' : '?';
    }
    entries.emplace_back(it->path().lexically_relative(dir).generic_string(), type);
  }
  if (ec) return Refuse(dir, fmt::format("cannot list it: {}", ec.message()));
  if (entries.empty()) return plan;

  auto manifest = synth::ReadManifest(dir);
  if (!manifest.ok()) {
    return Refuse(dir, fmt::format("is not empty and holds no trainscope demo job (no {})",
                                   synth::kManifestName));
  }
  std::set<std::pair<std::string, char>> listed;
  for (const synth::ManifestEntry& entry : *manifest) listed.insert({entry.path, entry.type});
  for (const auto& [path, type] : entries) {
    const bool ours =
        listed.count({path, type}) > 0 || (type == 'f' && path == synth::kManifestName) ||
        (type == 'f' && path == kDemoReport && IsTrainscopeReport(fmt::format("{}/{}", dir, path)));
    if (!ours) {
      return Refuse(dir, fmt::format("holds {}, which trainscope did not write (it is not in {})",
                                     path, synth::kManifestName));
    }
    (type == 'd' ? plan.dirs : plan.files).push_back(path);
  }
  // The manifest goes last: if removal stops half-way, what is left is
  // still described by it.
  std::stable_partition(plan.files.begin(), plan.files.end(),
                        [](const std::string& path) { return path != synth::kManifestName; });
  std::sort(plan.dirs.begin(), plan.dirs.end(), [](const std::string& a, const std::string& b) {
    return std::count(a.begin(), a.end(), '/') > std::count(b.begin(), b.end(), '/');
  });
  return plan;
}

Status ClearDemoDir(const DemoDirPlan& plan) {
  for (const std::string& file : plan.files) {
    const std::string path = plan.dir + "/" + file;
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
      return IoError(fmt::format("demo: cannot remove {}: {}", path, std::strerror(errno)));
    }
  }
  for (const std::string& sub : plan.dirs) {
    const std::string path = plan.dir + "/" + sub;
    if (::rmdir(path.c_str()) != 0 && errno != ENOENT) {
      return IoError(fmt::format("demo: cannot remove {}: {}", path, std::strerror(errno)));
    }
  }
  return Status::Ok();
}

}  // namespace trainscope::cli
