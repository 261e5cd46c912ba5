#include "formats/ascend_db/ascend_db_importer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
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

// The .db files of the export in |output_dir|, sorted by name.
std::vector<fs::path> DatabaseFiles(const fs::path& output_dir) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (fs::directory_iterator it(output_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (IsDatabaseName(it->path().filename().string()) && HasSqliteHeader(it->path().string())) {
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

Result<model::RankProfile> Load(const std::string& path, const ImportOptions& /*options*/) {
  return LoadAscendDbRank(path);
}

}  // namespace

bool HasSqliteHeader(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  char head[sizeof(kSqliteMagic)] = {};
  const ssize_t got = ::read(fd, head, sizeof(head));
  ::close(fd);
  return got == static_cast<ssize_t>(sizeof(head)) &&
         std::memcmp(head, kSqliteMagic, sizeof(head)) == 0;
}

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
