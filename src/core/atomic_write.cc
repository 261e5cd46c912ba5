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
  w.target_ = path;
  struct stat st {};
  w.existed_ = ::stat(path.c_str(), &st) == 0;
  if (w.existed_ && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
    // A stream the user named (/dev/null, /dev/stdout, a FIFO): written in
    // place. Renaming a temporary file over it would replace the device node.
    w.fd_ = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (w.fd_ < 0) return WriteError(path, false, "cannot open for writing", errno);
    w.existed_ = false;  // nothing to keep: a failure is reported as "nothing was written"
    return w;
  }
  if (w.existed_ && S_ISREG(st.st_mode)) {
    w.keep_mode_ = true;
    w.mode_ = st.st_mode & 07777;
  }
  // Follow a symlink so that the link survives and its target is updated.
  std::error_code ec;
  if (w.existed_ && fs::is_symlink(path, ec)) {
    fs::path resolved = fs::canonical(path, ec);
    if (!ec) w.target_ = resolved.string();
  }
  fs::path dir = fs::path(w.target_).parent_path();
  if (dir.empty()) dir = ".";
  // A name of our own in the same directory (rename() does not cross file
  // systems); O_EXCL makes sure it is a new file, never someone else's.
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100 && w.fd_ < 0; ++attempt) {
    w.temp_ =
        (dir / fmt::format(".{}.trainscope-tmp-{}-{}", fs::path(w.target_).filename().string(),
                           ::getpid(), counter.fetch_add(1)))
            .string();
    w.fd_ = ::open(w.temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (w.fd_ < 0 && errno != EEXIST)
      return WriteError(path, w.existed_, "cannot create a file in its directory", errno);
  }
  if (w.fd_ < 0) return WriteError(path, w.existed_, "cannot create a temporary file", EEXIST);
  return w;
}

AtomicFileWriter::AtomicFileWriter(AtomicFileWriter&& other) noexcept
    : path_(std::move(other.path_)),
      target_(std::move(other.target_)),
      temp_(std::move(other.temp_)),
      fd_(other.fd_),
      existed_(other.existed_),
      keep_mode_(other.keep_mode_),
      mode_(other.mode_),
      error_(other.error_),
      what_(other.what_) {
  other.fd_ = -1;
  other.temp_.clear();
}

AtomicFileWriter::~AtomicFileWriter() { Abandon(); }

void AtomicFileWriter::Abandon() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());  // ours: created with O_EXCL
  temp_.clear();
}

void AtomicFileWriter::Append(std::string_view content) {
  if (error_ != 0 || fd_ < 0) return;
  error_ = WriteAll(fd_, content);
  if (error_ != 0) what_ = temp_.empty() ? "write failed" : "cannot write";
}

Status AtomicFileWriter::Commit() {
  if (fd_ < 0) return InternalError(fmt::format("{}: committed twice", path_));
  int err = error_;
  const char* what = what_;
  if (temp_.empty()) {  // a stream, written in place
    const int close_err = ::close(fd_) != 0 ? errno : 0;
    fd_ = -1;
    if (err != 0 || close_err != 0)
      return WriteError(path_, false, "write failed", err ? err : close_err);
    return Status::Ok();
  }
  if (err == 0 && keep_mode_ && ::fchmod(fd_, mode_) != 0) {
    err = errno;
    what = "cannot set permissions";
  }
  // EINVAL: a file system without fsync; the rename still replaces atomically.
  if (err == 0 && ::fsync(fd_) != 0 && errno != EINVAL) {
    err = errno;
    what = "cannot write";
  }
  const int close_err = ::close(fd_) != 0 ? errno : 0;
  fd_ = -1;
  if (err == 0 && close_err != 0) {
    err = close_err;
    what = "cannot write";
  }
  if (err == 0 && ::rename(temp_.c_str(), target_.c_str()) != 0) {
    err = errno;
    what = "cannot replace";
  }
  if (err != 0) {
    Abandon();
    return WriteError(path_, existed_, what, err);
  }
  temp_.clear();  // renamed: no longer ours to remove
  return Status::Ok();
}

Status WriteFileAtomically(const std::string& path, std::string_view content) {
  TS_ASSIGN_OR_RETURN(AtomicFileWriter writer, AtomicFileWriter::Open(path));
  writer.Append(content);
  return writer.Commit();
}

}  // namespace trainscope
