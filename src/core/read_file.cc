#include "core/read_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace trainscope {
namespace {

// Closes the descriptor on every return path.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

Status OsError(const std::string& path, const char* what, int err) {
  std::string message = fmt::format("{}: {}: {}", path, what, std::strerror(err));
  if (err == ENOENT) return NotFound(message + "\nhint: check the path");
  if (err == ELOOP)
    return InvalidInput(message + "\nhint: the path is a symlink loop; point it at a file");
  if (err == ENOTDIR)
    return InvalidInput(message + "\nhint: a part of the path is a file, not a directory");
  return IoError(message);
}

Status RefuseType(const std::string& path, unsigned mode) {
  return InvalidInput(
      fmt::format("{}: is {}, expected a regular file or a pipe\nhint: give the path of a rule "
                  "file (a pipe such as "
                  "<(command) works too)",
                  path, FileTypeName(mode)));
}

Status TooLarge(const std::string& path, size_t max_bytes) {
  return InvalidInput(
      fmt::format("{}: larger than the {} MiB limit for this file\nhint: is this the right file?",
                  path, max_bytes >> 20));
}

struct FileTypeNames {
  unsigned type;  // st_mode & S_IFMT
  const char* with_article;
  const char* word;
};

constexpr FileTypeNames kFileTypes[] = {
    {S_IFREG, "a regular file", "regular file"},
    {S_IFDIR, "a directory", "directory"},
    {S_IFCHR, "a character device", "character device"},
    {S_IFBLK, "a block device", "block device"},
    {S_IFIFO, "a FIFO", "FIFO"},
    {S_IFSOCK, "a socket", "socket"},
    {S_IFLNK, "a symlink", "symbolic link"},
};

const FileTypeNames* NamesOf(unsigned mode) {
  for (const FileTypeNames& names : kFileTypes) {
    if ((mode & S_IFMT) == names.type) return &names;
  }
  return nullptr;
}

}  // namespace

const char* FileTypeName(unsigned mode) {
  const FileTypeNames* names = NamesOf(mode);
  return names != nullptr ? names->with_article : "not a regular file";
}

const char* FileTypeWord(unsigned mode) {
  const FileTypeNames* names = NamesOf(mode);
  return names != nullptr ? names->word : "unknown file type";
}

double ReadTimeoutSeconds() {
  if (const char* env = std::getenv("TRAINSCOPE_READ_TIMEOUT_S")) {
    char* end = nullptr;
    const double value = std::strtod(env, &end);
    if (end != env && std::isfinite(value) && value > 0 && value < 1e6) return value;
  }
  return kDefaultReadTimeoutS;
}

Result<std::string> ReadSmallFile(const std::string& path, size_t max_bytes) {
  // Check the type before open(): opening a device can have side effects,
  // and only the non-blocking open below is safe on a FIFO.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return OsError(path, "cannot open", errno);
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) return RefuseType(path, st.st_mode);
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > max_bytes)
    return TooLarge(path, max_bytes);

  // O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer.
  Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) return OsError(path, "cannot open", errno);
  // The path may have changed between stat() and open().
  if (::fstat(fd.get(), &st) != 0) return OsError(path, "cannot stat", errno);
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) return RefuseType(path, st.st_mode);
  const bool pipe = S_ISFIFO(st.st_mode);
  const double timeout_s = ReadTimeoutSeconds();
  const int timeout_ms = static_cast<int>(std::min(timeout_s * 1000.0, 2e9));

  std::string data;
  if (!pipe) data.reserve(static_cast<size_t>(st.st_size));
  char buffer[64 * 1024];
  for (;;) {
    if (pipe) {
      // Linux reports nothing on a FIFO until a writer has come and gone, so
      // this wait is what bounds a FIFO without a writer.
      pollfd p{fd.get(), POLLIN, 0};
      const int ready = ::poll(&p, 1, timeout_ms);
      if (ready < 0) {
        if (errno == EINTR) continue;
        return OsError(path, "cannot wait for data", errno);
      }
      if (ready == 0) {
        return InvalidInput(
            fmt::format("{}: no data arrived within {:g} s (a FIFO or pipe with no writer?)\nhint: "
                        "start the writer first, "
                        "give a regular file, or raise TRAINSCOPE_READ_TIMEOUT_S (seconds)",
                        path, timeout_s));
      }
    }
    const ssize_t n = ::read(fd.get(), buffer, sizeof(buffer));
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      return OsError(path, "cannot read", errno);
    }
    if (n == 0) break;
    if (data.size() + static_cast<size_t>(n) > max_bytes) return TooLarge(path, max_bytes);
    data.append(buffer, static_cast<size_t>(n));
  }
  return data;
}

}  // namespace trainscope
