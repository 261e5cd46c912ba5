#include "formats/profile_discovery.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "core/dir_walk.h"
#include "core/read_file.h"
#include "formats/ascend/ascend_importer.h"
#include "formats/ascend/profiler_info_reader.h"
#include "formats/importer_registry.h"

namespace trainscope::formats {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kOutputDirName = "ASCEND_PROFILER_OUTPUT";
constexpr std::string_view kRankDirSuffix = "_ascend_pt";
constexpr std::string_view kInputsHint =
    "hint: pass a job directory, a *_ascend_pt rank directory, its ASCEND_PROFILER_OUTPUT "
    "directory, or "
    "a PyTorch profiler trace (.json / .json.gz with traceEvents)";

// Names where a profile could be: a dangling link or a loop under such a
// name is worth a line in the input health, any other is noise.
bool ProfileLikeName(std::string_view name) {
  return name.ends_with(".json") || name.ends_with(".json.gz") || name.ends_with(kRankDirSuffix);
}

std::string NotRegularReason(mode_t mode) {
  return fmt::format("not a regular file ({}): never opened", FileTypeWord(mode));
}

// Why stat() on a path failed, in the OS's words ("Too many levels of
// symbolic links" for a loop, "Permission denied"), dangling links named.
bool IsLink(const fs::path& path) {
  struct stat link {};
  return ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
}

std::string StatFailure(const fs::path& path, int err) {
  if (err == ENOENT && IsLink(path)) return "dangling symbolic link (its target does not exist)";
  return std::strerror(err);
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

ProfileLocation MakeLocation(const Importer* importer, const fs::path& path) {
  ProfileLocation location;
  location.importer = importer;
  location.path = path.lexically_normal().string();
  while (location.path.size() > 1 && location.path.back() == '/') location.path.pop_back();
  if (importer->shape == InputShape::kDirectory) location.rank_hint = RankHint(path);
  return location;
}

// The rank around a file or directory inside ASCEND_PROFILER_OUTPUT: the
// registry's importer for it, else the text importer (whose load then says
// what the directory lacks).
ProfileLocation RankAround(const fs::path& rank_dir) {
  const Guess guess = GuessImporter(rank_dir.string(), InputShape::kDirectory, /*named=*/true);
  return MakeLocation(guess.importer ? guess.importer : &kAscendTextImporter, rank_dir);
}

// One entry of a directory being walked: true when the walk goes into it.
bool VisitEntry(const fs::path& path, Discovery* out) {
  const std::string name = path.filename().string();
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    out->skipped.push_back({path.string(), std::strerror(errno)});
    return false;
  }
  const bool is_link = S_ISLNK(st.st_mode);
  if (is_link && ::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    // A loop or a dangling link: only worth a line where a profile could be.
    if (ProfileLikeName(name) || err != ENOENT) {
      out->skipped.push_back({path.string(), "symbolic link: " + StatFailure(path, err)});
    }
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    const Guess guess = GuessImporter(path.string(), InputShape::kDirectory);
    if (guess.importer != nullptr) {
      // A rank: not descended into (PROF_* raw data inside: no ranks in there).
      out->profiles.push_back(MakeLocation(guess.importer, path));
    } else if (is_link) {
      // Not followed (a link back up would loop), but said.
      out->skipped.push_back(
          {path.string(),
           "symbolic link to a directory: not followed (give it as its own path to include it)"});
    } else {
      return true;
    }
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    out->skipped.push_back({path.string(), NotRegularReason(st.st_mode)});
    return false;
  }
  // CSVs, HTML reports, logs: no importer looks at them on their own.
  Guess guess = GuessImporter(path.string(), InputShape::kFile);
  if (guess.importer == nullptr) {
    if (!guess.reason.empty()) out->skipped.push_back({path.string(), std::move(guess.reason)});
  } else if (guess.importer->scope == ImportScope::kJob) {
    out->job_files.push_back({path.lexically_normal().string(), guess.importer->name});
  } else {
    out->profiles.push_back(MakeLocation(guess.importer, path));
  }
  return false;
}

// Directory symlinks are never descended into (VisitEntry says so instead):
// no loop can form.
void WalkJobDir(const fs::path& root, Discovery* out) {
  WalkDirectory(
      root, [&](const fs::directory_entry& entry) { return VisitEntry(entry.path(), out); },
      [&](const fs::path& dir, DirWalkProblem what, const std::error_code& ec) {
        out->skipped.push_back(
            {dir.string(), (what == DirWalkProblem::kCannotList ? "cannot list directory: "
                                                                : "listing stopped: ") +
                               ec.message()});
      });
}

void SortDiscovery(Discovery* found) {
  std::sort(found->profiles.begin(), found->profiles.end(),
            [](const ProfileLocation& a, const ProfileLocation& b) {
              const bool a_known = a.rank_hint >= 0;
              const bool b_known = b.rank_hint >= 0;
              if (a_known != b_known) return a_known;
              if (a.rank_hint != b.rank_hint) return a.rank_hint < b.rank_hint;
              return a.path < b.path;
            });
  std::sort(found->skipped.begin(), found->skipped.end(),
            [](const model::InputIssue& a, const model::InputIssue& b) { return a.path < b.path; });
  std::sort(found->job_files.begin(), found->job_files.end(),
            [](const JobFile& a, const JobFile& b) { return a.path < b.path; });
}

Discovery One(ProfileLocation location) {
  Discovery found;
  found.profiles.push_back(std::move(location));
  return found;
}

}  // namespace

std::string ListIssues(const std::vector<model::InputIssue>& issues, size_t limit) {
  std::string out;
  for (size_t i = 0; i < issues.size() && i < limit; ++i) {
    const std::string& reason = issues[i].reason;
    out += fmt::format("\n  {}: {}", issues[i].path,
                       std::string_view(reason).substr(0, reason.find('\n')));
  }
  if (issues.size() > limit) out += fmt::format("\n  ... and {} more", issues.size() - limit);
  return out;
}

Result<Discovery> DiscoverProfiles(const std::string& path) {
  fs::path root(path);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOENT) {
      return NotFound(fmt::format("{}: no such file or directory{}", path,
                                  IsLink(root) ? " (dangling symbolic link)" : ""));
    }
    // ELOOP, EACCES on a parent, ENOTDIR...: the OS reason, not "no such file".
    return InvalidInput(
        fmt::format("{}: cannot access: {}\n{}", path, std::strerror(err), kInputsHint));
  }
  if (S_ISREG(st.st_mode)) {
    // A file inside ASCEND_PROFILER_OUTPUT (e.g. kernel_details.csv): its rank.
    fs::path parent = root.lexically_normal().parent_path();
    if (parent.filename() == kOutputDirName) return One(RankAround(parent.parent_path()));
    Guess guess = GuessImporter(path, InputShape::kFile, /*named=*/true);
    if (guess.importer != nullptr && guess.importer->scope == ImportScope::kRank) {
      return One(MakeLocation(guess.importer, root));
    }
    if (guess.importer != nullptr) {
      return InvalidInput(fmt::format("{}: a job-level input ({}), not a rank profile\n{}", path,
                                      guess.importer->description, kInputsHint));
    }
    return InvalidInput(fmt::format(
        "{}: not a profile this tool reads: {}\n{}", path,
        guess.reason.empty() ? "no importer recognises it" : guess.reason, kInputsHint));
  }
  if (!S_ISDIR(st.st_mode)) {
    return InvalidInput(fmt::format("{}: not a regular file ({})\n{}", path,
                                    FileTypeWord(st.st_mode), kInputsHint));
  }
  fs::path normalized = root.lexically_normal();
  if (normalized.filename().empty()) normalized = normalized.parent_path();
  if (normalized.filename() == kOutputDirName) return One(RankAround(normalized.parent_path()));
  const Guess guess = GuessImporter(normalized.string(), InputShape::kDirectory, /*named=*/true);
  if (guess.importer != nullptr) return One(MakeLocation(guess.importer, normalized));

  Discovery found;
  WalkJobDir(normalized, &found);
  SortDiscovery(&found);
  if (found.profiles.empty()) {
    std::string skipped;
    if (!found.skipped.empty()) {
      skipped = fmt::format("\n{} entr{} skipped:{}", found.skipped.size(),
                            found.skipped.size() == 1 ? "y" : "ies", ListIssues(found.skipped, 10));
    }
    return NotFound(fmt::format(
        "{}: no profile found{}\nhint: expected *_ascend_pt directories (or directories with "
        "ASCEND_PROFILER_OUTPUT/kernel_details.csv) or PyTorch profiler traces (.json / .json.gz) "
        "at any depth below it",
        path, skipped));
  }
  return found;
}

}  // namespace trainscope::formats
