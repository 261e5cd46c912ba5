#include "synth/manifest.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>

#include "core/atomic_write.h"
#include "core/read_file.h"

namespace trainscope::synth {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kHeader =
    "# trainscope synth manifest 1: the files (f) and directories (d) trainscope wrote here.\n"
    "# `trainscope demo --out` removes exactly these, and nothing else, before writing a new "
    "job.\n";

bool WellFormed(std::string_view path) {
  if (path.empty() || path.front() == '/' || path.back() == '/') return false;
  size_t start = 0;
  while (start <= path.size()) {
    const size_t end = std::min(path.find('/', start), path.size());
    const std::string_view part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return path.find('\n') == std::string_view::npos && path.find('\0') == std::string_view::npos;
}

std::string Line(const ManifestEntry& entry) {
  return fmt::format("{} {}\n", entry.type, entry.path);
}

}  // namespace

Status WriteManifest(const std::string& dir) {
  std::vector<ManifestEntry> entries;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec);
  for (fs::recursive_directory_iterator end; !ec && it != end; it.increment(ec)) {
    const std::string relative = it->path().lexically_relative(dir).generic_string();
    if (relative == kManifestName) continue;
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      entries.push_back({'d', relative});
    } else if (S_ISREG(st.st_mode)) {
      entries.push_back({'f', relative});
    }
  }
  if (ec) return IoError(fmt::format("synth: cannot list {}: {}", dir, ec.message()));
  std::sort(entries.begin(), entries.end(),
            [](const ManifestEntry& a, const ManifestEntry& b) { return a.path < b.path; });
  std::string text(kHeader);
  for (const ManifestEntry& entry : entries) text += Line(entry);
  return WriteFileAtomically(dir + "/" + kManifestName, text);
}

Status AppendToManifest(const std::string& dir, const std::vector<ManifestEntry>& entries) {
  const std::string path = dir + "/" + kManifestName;
  TS_ASSIGN_OR_RETURN(std::string text, ReadSmallFile(path));
  for (const ManifestEntry& entry : entries) {
    if (WellFormed(entry.path)) text += Line(entry);
  }
  return WriteFileAtomically(path, text);
}

Result<std::vector<ManifestEntry>> ReadManifest(const std::string& dir) {
  const std::string path = dir + "/" + kManifestName;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return NotFound(fmt::format("{}: no trainscope manifest", path));
  }
  TS_ASSIGN_OR_RETURN(std::string text, ReadSmallFile(path));
  if (!std::string_view(text).starts_with("# trainscope synth manifest")) {
    return NotFound(fmt::format("{}: not a trainscope manifest", path));
  }
  std::vector<ManifestEntry> entries;
  std::string_view rest(text);
  while (!rest.empty()) {
    const size_t eol = rest.find('\n');
    const std::string_view line = rest.substr(0, eol);
    rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
    if (line.size() < 3 || line[1] != ' ' || (line[0] != 'f' && line[0] != 'd')) continue;
    const std::string_view entry_path = line.substr(2);
    if (WellFormed(entry_path)) entries.push_back({line[0], std::string(entry_path)});
  }
  return entries;
}

}  // namespace trainscope::synth
