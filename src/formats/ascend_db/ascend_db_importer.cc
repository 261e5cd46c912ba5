#include "formats/ascend_db/ascend_db_importer.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "formats/ascend_db/ascend_db_reader.h"

namespace trainscope::formats {
namespace {

namespace fs = std::filesystem;

constexpr char kSqliteMagic[] = "SQLite format 3";  // + its NUL: 16 bytes

bool IsDatabaseName(std::string_view name) {
  return (name.starts_with("ascend_pytorch_profiler") && name.ends_with(".db")) ||
         name == "analysis.db";
}

// Whether a file named like the export's database that cannot be read at
// all (a dangling link, a loop, no permission) is there: the directory is
// still claimed, so the load says why instead of "no profile".
bool UnreadableDatabase(const fs::path& path) {
  struct stat st {};
  struct stat link {};
  return ::lstat(path.c_str(), &link) == 0 &&
         (::stat(path.c_str(), &st) != 0 ||
          (S_ISREG(st.st_mode) && ::access(path.c_str(), R_OK) != 0));
}

// The .db files of the export in |output_dir|, sorted by name.
std::vector<fs::path> DatabaseFiles(const fs::path& output_dir) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (fs::directory_iterator it(output_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (IsDatabaseName(it->path().filename().string()) &&
        (HasSqliteHeader(it->path().string()) || UnreadableDatabase(it->path()))) {
      found.push_back(it->path());
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

SniffVerdict Sniff(const std::string& path, bool /*named*/) {
  if (DatabaseFiles(fs::path(path) / "ASCEND_PROFILER_OUTPUT").empty()) return {};
  return {50, {}};
}

Result<model::RankProfile> Load(const std::string& path, const ImportOptions& options) {
  return LoadAscendDbRank(path, DbReadOptions{options.threads});
}

}  // namespace

Status CheckSqliteHeader(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int error = errno;
    struct stat link {};
    if (error == ENOENT && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
      return InvalidInput(
          fmt::format("{}: dangling symbolic link (its target does not exist)", path));
    }
    return InvalidInput(
        fmt::format("{}: cannot open: {}", path, std::generic_category().message(error)));
  }
  if (!S_ISREG(st.st_mode)) {
    return InvalidInput(fmt::format("{}: not a regular file ({})", path,
                                    S_ISDIR(st.st_mode)    ? "a directory"
                                    : S_ISFIFO(st.st_mode) ? "FIFO"
                                    : S_ISSOCK(st.st_mode) ? "socket"
                                                           : "device"));
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int error = errno;
    return InvalidInput(
        fmt::format("{}: cannot open: {}", path, std::generic_category().message(error)));
  }
  char head[sizeof(kSqliteMagic)] = {};
  const ssize_t got = ::read(fd, head, sizeof(head));
  const int error = errno;
  ::close(fd);
  if (got < 0) {
    return InvalidInput(
        fmt::format("{}: cannot read: {}", path, std::generic_category().message(error)));
  }
  if (got != static_cast<ssize_t>(sizeof(head)) ||
      std::memcmp(head, kSqliteMagic, sizeof(head)) != 0) {
    return InvalidInput(
        fmt::format("{}: not a SQLite database (no \"SQLite format 3\" header)", path));
  }
  return Status::Ok();
}

bool HasSqliteHeader(const std::string& path) { return CheckSqliteHeader(path).ok(); }

const Importer kAscendDbImporter = {
    "ascend-db",
    "torch_npu rank directory with only the SQLite export (ascend_pytorch_profiler_<rank>.db, "
    "analysis.db)",
    InputShape::kDirectory,
    ImportScope::kRank,
    Sniff,
    Load,
};

}  // namespace trainscope::formats
