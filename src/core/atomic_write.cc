#include "core/atomic_write.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace trainscope {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kTempMarker = ".trainscope-tmp-";

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

Status RefuseLink(const std::string& path) {
  std::error_code ec;
  const std::string target = fs::read_symlink(path, ec).string();
  return UsageError(fmt::format(
      "{}: is a symlink (to {}); trainscope writes no output through a link it did not create\n"
      "hint: nothing was written; remove the link or choose another path",
      path, ec ? std::string("?") : target));
}

Result<int> OpenStream(const std::string& path, const struct stat& st) {
  // Non-blocking: a FIFO nobody reads would block open() forever; it fails
  // with ENXIO instead. Writes then block as usual.
  const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENXIO && S_ISFIFO(st.st_mode)) {
      return UsageError(fmt::format(
          "{}: is a FIFO that nobody reads\nhint: nothing was written; start its reader first "
          "(e.g. `cat {} &`), or write to a file",
          path, path));
    }
    return WriteError(path, false, "cannot open for writing", err);
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

// Removes the entry |name| of the directory |parent_fd| and, when it is a
// directory, everything in it, never following a link: each level is opened
// relative to its parent with O_NOFOLLOW, so a directory swapped for a link
// while this runs is unlinked as a link, never entered. Trees deeper than
// synth writes are left (no recursion without bound).
void RemoveStaleTreeAt(int parent_fd, const char* name, int depth) {
  if (::unlinkat(parent_fd, name, 0) == 0 || errno != EISDIR || depth > 32) return;
  const int fd = ::openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  DIR* listing = ::fdopendir(fd);
  if (listing == nullptr) {
    ::close(fd);
    return;
  }
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(listing)) {
    const std::string_view n = entry->d_name;
    if (n != "." && n != "..") names.emplace_back(n);
  }
  for (const std::string& n : names) RemoveStaleTreeAt(::dirfd(listing), n.c_str(), depth + 1);
  ::closedir(listing);
  ::unlinkat(parent_fd, name, AT_REMOVEDIR);
}

}  // namespace

bool IsTemporaryFileName(std::string_view name, int* pid) {
  // .NAME.trainscope-tmp-PID-N
  const size_t marker = name.rfind(kTempMarker);
  // NAME is never empty: the writer names its temporary after the output.
  if (name.size() < 2 || name[0] != '.' || marker == std::string_view::npos || marker < 2)
    return false;
  std::string_view rest = name.substr(marker + kTempMarker.size());
  const size_t dash = rest.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == rest.size()) return false;
  const std::string_view pid_text = rest.substr(0, dash);
  const std::string_view counter = rest.substr(dash + 1);
  const auto all_digits = [](std::string_view text) {
    return text.size() <= 10 && text.find_first_not_of("0123456789") == std::string_view::npos;
  };
  if (!all_digits(pid_text) || !all_digits(counter)) return false;
  long value = 0;
  for (const char c : pid_text) value = value * 10 + (c - '0');
  if (value <= 0 || value > INT32_MAX) return false;
  *pid = static_cast<int>(value);
  return true;
}

void RemoveStaleTemporaries(const std::string& dir) {
  DIR* listing = ::opendir(dir.c_str());
  if (listing == nullptr) return;
  const int dir_fd = ::dirfd(listing);
  const int self = ::getpid();
  while (const dirent* entry = ::readdir(listing)) {
    int pid = 0;
    if (!IsTemporaryFileName(entry->d_name, &pid) || pid == self) continue;
    // Only a dead writer's: kill(pid, 0) fails with ESRCH. EPERM means a
    // live process of another user.
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;
    // Only a plain file or directory of this user, never followed.
    struct stat st {};
    if (::fstatat(dir_fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid != ::geteuid())
      continue;
    if (S_ISREG(st.st_mode)) {
      // Were it swapped for a link since, unlinkat removes the link itself.
      ::unlinkat(dir_fd, entry->d_name, 0);
    } else if (S_ISDIR(st.st_mode)) {
      // A killed synth's job in the making (synth/synth.h): links inside
      // are removed, never what they point to.
      RemoveStaleTreeAt(dir_fd, entry->d_name, 0);
    }
  }
  ::closedir(listing);
}

Result<AtomicFileWriter> AtomicFileWriter::Open(const std::string& path) {
  AtomicFileWriter w;
  w.path_ = path;
  if (path.empty()) {
    return UsageError(
        "an output path is empty\nhint: give a file name, or '-' where standard "
        "output is accepted");
  }
  struct stat lst {};
  const bool exists = ::lstat(path.c_str(), &lst) == 0;
  struct stat st = lst;
  const bool link = exists && S_ISLNK(lst.st_mode);
  const bool resolves = !link || ::stat(path.c_str(), &st) == 0;
  if (exists && resolves && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
    // A stream the user named (/dev/null, /dev/stdout, a FIFO): written in
    // place, also through a link (/dev/stdout is one): nothing is replaced.
    TS_ASSIGN_OR_RETURN(w.fd_, OpenStream(path, st));
    return w;
  }
  if (link) return RefuseLink(path);
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  // The rename replaces the directory entry at |path| itself: were a link
  // put there after the check above, the link is replaced, never its target.
  w.target_ = path;
  w.existed_ = exists;
  w.mode_ = exists && S_ISREG(lst.st_mode) ? (lst.st_mode & 07777) : 0;
  RemoveStaleTemporaries(dir.string());

  // A name of our own in the same directory (rename() does not cross file
  // systems); O_EXCL makes sure it is a new file, never someone else's.
  static std::atomic<unsigned> counter{0};
  const std::string base = fs::path(path).filename().string();
  for (int attempt = 0; attempt < 100 && w.fd_ < 0; ++attempt) {
    w.temp_ = (dir / fmt::format(".{}{}{}-{}", base, kTempMarker, ::getpid(), counter.fetch_add(1)))
                  .string();
    w.fd_ = ::open(w.temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
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
