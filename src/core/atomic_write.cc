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

Result<AtomicFileWriter> AtomicFileWriter::Open(const std::string& path) {
  AtomicFileWriter w;
  w.path_ = path;
  // Follow a symlink so that the link survives and its target is updated.
  fs::path target = path;
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
    // A stream the user named (/dev/null, /dev/stdout, a FIFO): written in
    // place. Renaming a temporary file over it would replace the device node.
    w.fd_ = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (w.fd_ < 0) return WriteError(path, false, "cannot open for writing", errno);
    return w;
  }
  std::error_code ec;
  if (exists && fs::is_symlink(target, ec)) {
    fs::path resolved = fs::canonical(target, ec);
    if (!ec) target = resolved;
  }
  fs::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  w.target_ = target.string();
  w.existed_ = exists;
  w.mode_ = exists && S_ISREG(st.st_mode) ? (st.st_mode & 07777) : 0;

  // A name of our own in the same directory (rename() does not cross file
  // systems); O_EXCL makes sure it is a new file, never someone else's.
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100 && w.fd_ < 0; ++attempt) {
    w.temp_ = (dir / fmt::format(".{}.trainscope-tmp-{}-{}", target.filename().string(), ::getpid(),
                                 counter.fetch_add(1)))
                  .string();
    w.fd_ = ::open(w.temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (w.fd_ < 0 && errno != EEXIST) {
      const int err = errno;
      w.temp_.clear();
      return WriteError(path, exists, "cannot create a file in its directory", err);
    }
  }
  if (w.fd_ < 0) {
    w.temp_.clear();
    return WriteError(path, exists, "cannot create a temporary file", EEXIST);
  }
  return w;
}

AtomicFileWriter::AtomicFileWriter(AtomicFileWriter&& other) noexcept
    : path_(std::move(other.path_)),
      target_(std::move(other.target_)),
      temp_(std::move(other.temp_)),
      fd_(other.fd_),
      existed_(other.existed_),
      mode_(other.mode_) {
  other.fd_ = -1;
  other.temp_.clear();
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_.empty()) ::unlink(temp_.c_str());  // ours: created with O_EXCL, never committed
}

Status AtomicFileWriter::Append(std::string_view content) {
  if (fd_ < 0) return WriteError(path_, existed_, "cannot write", EBADF);
  const int err = WriteAll(fd_, content);
  if (err != 0) return WriteError(path_, existed_, "cannot write", err);
  return Status::Ok();
}

Status AtomicFileWriter::Commit() {
  if (fd_ < 0) return WriteError(path_, existed_, "cannot write", EBADF);
  int err = 0;
  const char* what = "cannot write";
  if (!temp_.empty() && existed_ && ::fchmod(fd_, mode_) != 0) {
    err = errno;
    what = "cannot set permissions";
  }
  // EINVAL: a file system (or stream) without fsync; the rename still
  // replaces atomically.
  if (err == 0 && !temp_.empty() && ::fsync(fd_) != 0 && errno != EINVAL) err = errno;
  if (::close(fd_) != 0 && err == 0) err = errno;
  fd_ = -1;
  if (err == 0 && !temp_.empty() && ::rename(temp_.c_str(), target_.c_str()) != 0) {
    err = errno;
    what = "cannot replace";
  }
  if (err != 0) return WriteError(path_, existed_ && !temp_.empty(), what, err);
  temp_.clear();  // renamed: no longer ours to remove
  return Status::Ok();
}

Status WriteFileAtomically(const std::string& path, std::string_view content) {
  TS_ASSIGN_OR_RETURN(AtomicFileWriter writer, AtomicFileWriter::Open(path));
  TS_RETURN_IF_ERROR(writer.Append(content));
  return writer.Commit();
}

}  // namespace trainscope
