#include "cli/output_paths.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>

#include "core/read_file.h"
#include "export/sqlite_export.h"
#include "report/html_report.h"
#include "report/json_report.h"

namespace trainscope::cli {
namespace {

namespace fs = std::filesystem;

// What is known of one input: its identity and where it really is.
struct Input {
  std::string path;
  struct stat st {};
  fs::path canonical;
};

std::vector<Input> StatInputs(const std::vector<std::string>& paths) {
  std::vector<Input> inputs;
  for (const std::string& path : paths) {
    Input input;
    input.path = path;
    if (path.empty() || ::stat(path.c_str(), &input.st) != 0) continue;
    std::error_code ec;
    input.canonical = fs::canonical(path, ec);
    inputs.push_back(std::move(input));
  }
  return inputs;
}

bool SameFile(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

bool IsUnder(const fs::path& file, const fs::path& dir) {
  if (dir.empty()) return false;
  auto [dir_end, file_it] = std::mismatch(dir.begin(), dir.end(), file.begin(), file.end());
  return dir_end == dir.end();
}

Status Refuse(const OutputPath& out, const std::string& reason, const std::string& hint) {
  return UsageError(fmt::format("{} {}: {}\nhint: {}", out.option, out.path, reason, hint));
}

// The file will be created or replaced by a rename in |dir|: it must be a
// directory we may write in.
Status CheckDirectory(const OutputPath& out, const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    return Refuse(out, fmt::format("cannot write in {}: {}", dir, std::strerror(errno)),
                  "create the directory first, or choose another path");
  }
  if (!S_ISDIR(st.st_mode)) {
    return Refuse(out, fmt::format("cannot write in {}: {}", dir, std::strerror(ENOTDIR)),
                  "choose another path");
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return Refuse(out, fmt::format("cannot write in {}: {}", dir, std::strerror(errno)),
                  "choose a directory you can write to");
  }
  return Status::Ok();
}

std::string ParentOf(const std::string& path) {
  std::string parent = fs::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

Status CheckOne(const OutputPath& out, const std::vector<Input>& inputs) {
  struct stat lst {};
  if (::lstat(out.path.c_str(), &lst) != 0) {
    const int err = errno;
    if (err != ENOENT) return Refuse(out, std::strerror(err), "check the path");
    return CheckDirectory(out, ParentOf(out.path));  // a new file
  }
  struct stat st {};
  if (::stat(out.path.c_str(), &st) != 0) {
    const int err = errno;
    std::error_code ec;
    const std::string target = fs::read_symlink(out.path, ec).string();
    return Refuse(out,
                  fmt::format("is a symlink to {} that cannot be followed ({}); trainscope writes "
                              "no output through a link it did not create",
                              target, std::strerror(err)),
                  "remove the link, or choose another path");
  }
  if (S_ISDIR(st.st_mode)) {
    return Refuse(out, "is a directory",
                  fmt::format("give a file name, e.g. {}/{}", out.path,
                              out.option == "--html"       ? "report.html"
                              : out.option == "--perfetto" ? "trace.json"
                              : out.option == "--sqlite"   ? "trainscope.db"
                                                           : "report.json"));
  }
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
    // A stream the user named (/dev/null, /dev/stdout, a FIFO): written in
    // place, nothing is replaced. Block devices stay refused below: writing
    // a report over a disk destroys it. A FIFO is opened non-blocking when
    // written (core/atomic_write.h): one nobody reads is refused then.
    return Status::Ok();
  }
  if (!S_ISREG(st.st_mode)) {
    return Refuse(out, fmt::format("is {}, not a regular file", FileTypeName(st.st_mode)),
                  fmt::format("give a file path, or '{} -' for standard output", out.option));
  }
  for (const Input& input : inputs) {
    if (SameFile(st, input.st)) {
      return Refuse(out, fmt::format("is an input of this run ({})", input.path),
                    "choose another output path: trainscope never overwrites its inputs");
    }
  }
  std::error_code ec;
  if (S_ISLNK(lst.st_mode)) {
    return Refuse(out,
                  fmt::format("is a symlink to {}; trainscope writes no output through a link "
                              "it did not create",
                              fs::read_symlink(out.path, ec).string()),
                  "remove the link, or give the path it points to");
  }
  const fs::path canonical = fs::canonical(out.path, ec);
  if (!IsTrainscopeReport(out.path)) {
    std::string where;
    for (const Input& input : inputs) {
      if (S_ISDIR(input.st.st_mode) && IsUnder(canonical, input.canonical)) {
        where = fmt::format(", and it lies inside the input directory {}", input.path);
        break;
      }
    }
    return Refuse(out, "exists and is not a report trainscope wrote" + where,
                  "choose another path, or remove the file yourself if it may go");
  }
  // Replaced by a rename in its directory.
  return CheckDirectory(out, ParentOf(out.path));
}

// Two outputs name the same file: spelled alike once symlinks and ".." are
// resolved, or the same inode (a hard link).
bool SameDestination(const std::string& a, const std::string& b) {
  std::error_code ec_a, ec_b;
  // absolute() first: weakly_canonical leaves a relative path relative when
  // no part of it exists yet, so "a.json" and "./a.json" would differ.
  const fs::path ca = fs::weakly_canonical(fs::absolute(a, ec_a), ec_a);
  const fs::path cb = fs::weakly_canonical(fs::absolute(b, ec_b), ec_b);
  if (!ec_a && !ec_b && ca == cb) return true;
  struct stat sa {
  }, sb{};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && SameFile(sa, sb);
}

}  // namespace

bool IsTrainscopeReport(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  std::string head(4096, '\0');
  size_t got = 0;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    while (got < head.size()) {
      const ssize_t n = ::read(fd, head.data() + got, head.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
  }
  ::close(fd);
  head.resize(got);
  const std::string_view text(head);
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return false;
  if (text.starts_with(std::string_view("SQLite format 3\0", 16)))
    return exports::IsTrainscopeDatabase(path);
  if (text[first] == '{') {
    // trainscope's JSON documents (the report, compare, health, the
    // annotated trace) write their "schema" first; any of them and any
    // version counts.
    const std::string_view schema = report::kJsonSchema;
    // Appended, not `"\"" + std::string(...)`: that makes GCC 12 at -O3 warn
    // (-Wrestrict, a false positive in libstdc++'s operator+).
    std::string marker = "\"";
    marker += schema.substr(0, schema.find('.') + 1);
    const size_t key = text.find("\"schema\"", first);
    const size_t value = text.find(marker, first);
    return key != std::string_view::npos && key < 64 && value != std::string_view::npos &&
           value < key + 32;
  }
  return text.find(report::kHtmlGeneratorMeta) != std::string_view::npos ||
         text.find("<title>trainscope report</title>") != std::string_view::npos;
}

Status CheckOutputPaths(const std::vector<OutputPath>& outputs,
                        const std::vector<std::string>& inputs) {
  std::vector<const OutputPath*> requested;
  for (const OutputPath& out : outputs) {
    if (!out.path.empty()) requested.push_back(&out);
  }
  for (size_t i = 0; i < requested.size(); ++i) {
    for (size_t j = i + 1; j < requested.size(); ++j) {
      const OutputPath& a = *requested[i];
      const OutputPath& b = *requested[j];
      if (a.path == "-" && b.path == "-") {
        return UsageError(fmt::format(
            "{} - and {} - both write to standard output\nhint: write one of them to a file",
            a.option, b.option));
      }
      if (a.path != "-" && b.path != "-" && SameDestination(a.path, b.path)) {
        return UsageError(
            fmt::format("{} {} and {} {} name the same file\nhint: give each output its own file",
                        a.option, a.path, b.option, b.path));
      }
    }
  }
  const std::vector<Input> stated = StatInputs(inputs);
  for (const OutputPath* out : requested) {
    if (out->path != "-") TS_RETURN_IF_ERROR(CheckOne(*out, stated));
  }
  return Status::Ok();
}

}  // namespace trainscope::cli
