#include "core/atomic_write.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace trainscope {
namespace {

namespace fs = std::filesystem;

Status WriteError(const std::string& path, bool existed, const char* what, int err) {
  return IoError(fmt::format("{}: {}: {}\nhint: {}", path, what, std::strerror(err),
                             existed ? "the existing file is unchanged" : "nothing was written"));
}

// Writes all of |content|, retrying short writes and EINTR.
int WriteAll(int fd, std::string_view content) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    content.remove_prefix(static_cast<size_t>(n));
  }
  return 0;
}

}  // namespace

Status WriteFileAtomically(const std::string& path, std::string_view content) {
  // Follow a symlink so that the link survives and its target is updated.
  fs::path target = path;
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
    // A stream the user named (/dev/null, /dev/stdout, a FIFO): written in
    // place. Renaming a temporary file over it would replace the device node.
    const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return WriteError(path, false, "cannot open for writing", errno);
    const int err = WriteAll(fd, content);
    const int close_err = ::close(fd) != 0 ? errno : 0;
    if (err != 0 || close_err != 0)
      return WriteError(path, false, "write failed", err ? err : close_err);
    return Status::Ok();
  }
  std::error_code ec;
  if (exists && fs::is_symlink(target, ec)) {
    fs::path resolved = fs::canonical(target, ec);
    if (!ec) target = resolved;
  }
  fs::path dir = target.parent_path();
  if (dir.empty()) dir = ".";

  // A name of our own in the same directory (rename() does not cross file
  // systems); O_EXCL makes sure it is a new file, never someone else's.
  static std::atomic<unsigned> counter{0};
  std::string temp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    temp = (dir / fmt::format(".{}.trainscope-tmp-{}-{}", target.filename().string(), ::getpid(),
                              counter.fetch_add(1)))
               .string();
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST)
      return WriteError(path, exists, "cannot create a file in its directory", errno);
  }
  if (fd < 0) return WriteError(path, exists, "cannot create a temporary file", EEXIST);

  int err = WriteAll(fd, content);
  const char* what = "cannot write";
  if (err == 0 && exists && S_ISREG(st.st_mode) && ::fchmod(fd, st.st_mode & 07777) != 0) {
    err = errno;
    what = "cannot set permissions";
  }
  // EINVAL: a file system without fsync; the rename still replaces atomically.
  if (err == 0 && ::fsync(fd) != 0 && errno != EINVAL) {
    err = errno;
    what = "cannot write";
  }
  if (::close(fd) != 0 && err == 0) {
    err = errno;
    what = "cannot write";
  }
  if (err == 0 && ::rename(temp.c_str(), target.c_str()) != 0) {
    err = errno;
    what = "cannot replace";
  }
  if (err != 0) {
    ::unlink(temp.c_str());  // ours: created above with O_EXCL
    return WriteError(path, exists, what, err);
  }
  return Status::Ok();
}

}  // namespace trainscope
