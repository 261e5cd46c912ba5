#include "core/mapped_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/bus_fault.h"
#include "core/page_release.h"
#include "core/read_file.h"

namespace trainscope {
namespace {

Status OpenError(const std::string& path, int err) {
  if (err == ENOENT) {
    struct stat link {};
    const bool dangling = ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
    return NotFound(
        fmt::format("{}: no such file{}", path, dangling ? " (dangling symbolic link)" : ""));
  }
  // ELOOP (a symlink loop), EACCES, ENOTDIR...: the OS reason says what happened.
  const std::string message = fmt::format("{}: cannot open: {}", path, std::strerror(err));
  if (err == ELOOP || err == ENOTDIR || err == ENAMETOOLONG) return InvalidInput(message);
  return IoError(message);
}

Status NotRegular(const std::string& path, mode_t mode) {
  if (S_ISDIR(mode)) return InvalidInput(fmt::format("{}: is a directory, expected a file", path));
  return InvalidInput(fmt::format(
      "{}: not a regular file ({})\nhint: trainscope reads only regular files; copy the data "
      "into a file first",
      path, FileTypeWord(mode)));
}

}  // namespace

Result<MappedFile> MappedFile::Open(const std::string& path) {
  // Check the type before opening: opening a FIFO blocks until a writer
  // comes, and opening a device can have side effects.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return OpenError(path, errno);
  if (!S_ISREG(st.st_mode)) return NotRegular(path, st.st_mode);
  // O_NONBLOCK: should the path be swapped for a FIFO after the stat, the
  // open still returns at once, and the fstat below rejects it.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return OpenError(path, errno);
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return IoError(fmt::format("{}: cannot stat: {}", path, std::strerror(err)));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return NotRegular(path, st.st_mode);
  }
  MappedFile file;
  file.path_ = path;
  file.size_ = static_cast<size_t>(st.st_size);
  if (file.size_ > 0) {
    void* addr = ::mmap(nullptr, file.size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (addr == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      return IoError(fmt::format("{}: cannot map: {}", path, std::strerror(err)));
    }
    ::madvise(addr, file.size_, MADV_SEQUENTIAL);
    file.data_ = static_cast<const char*>(addr);
    file.mapped_ = true;
    file.fault_slot_ = RegisterFileMapping(addr, file.size_);
  }
  file.fd_ = fd;
  return file;
}

bool MappedFile::ReadAt(size_t offset, size_t length, char* out) const {
  if (fd_ < 0 || offset > size_ || length > size_ - offset) return false;
  while (length > 0) {
    const ssize_t got = ::pread(fd_, out, length, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    out += got;
    offset += static_cast<size_t>(got);
    length -= static_cast<size_t>(got);
  }
  return true;
}

Status MappedFile::CheckIntact() const {
  struct stat st {};
  const bool faulted = FileMappingFaulted(fault_slot_);
  const bool shorter =
      fd_ >= 0 && ::fstat(fd_, &st) == 0 && static_cast<size_t>(st.st_size) < size_;
  if (!faulted && !shorter) return Status::Ok();
  return InvalidInput(fmt::format(
      "{}: the file shrank while it was read ({} bytes when opened{}); not read\nhint: another "
      "program is writing or truncating it; read it once it is complete, or read a copy",
      path_, size_, shorter ? fmt::format(", {} now", st.st_size) : std::string()));
}

Status MappedFile::Intact(Status status) const {
  Status intact = CheckIntact();
  if (intact.ok()) return status;
  return intact;
}

void MappedFile::Release(size_t begin, size_t end) const {
  if (!mapped_ || begin >= std::min(end, size_)) return;
  // Whole pages only: the neighbours' bytes on a shared page stay mapped.
  DropPagesWithin(data_ + begin, std::min(end, size_) - begin);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : path_(std::move(other.path_)),
      data_(other.data_),
      size_(other.size_),
      mapped_(other.mapped_),
      fd_(other.fd_),
      fault_slot_(other.fault_slot_) {
  other.data_ = nullptr;
  other.size_ = 0;
  other.mapped_ = false;
  other.fd_ = -1;
  other.fault_slot_ = -1;
}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    UnregisterFileMapping(fault_slot_);
    if (mapped_) ::munmap(const_cast<char*>(data_), size_);
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    data_ = other.data_;
    size_ = other.size_;
    mapped_ = other.mapped_;
    fd_ = other.fd_;
    fault_slot_ = other.fault_slot_;
    other.data_ = nullptr;
    other.size_ = 0;
    other.mapped_ = false;
    other.fd_ = -1;
    other.fault_slot_ = -1;
  }
  return *this;
}

MappedFile::~MappedFile() {
  UnregisterFileMapping(fault_slot_);
  if (mapped_) ::munmap(const_cast<char*>(data_), size_);
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace trainscope
