// MappedFile: a read-only view of a whole file, memory-mapped.
//
// The bytes stay valid while the MappedFile lives; readers hand out
// string_views into it. Empty files map to an empty view (mmap of length 0 is
// not allowed, so no mapping is made). Only regular files are opened: a FIFO,
// socket or device is rejected (kInvalidInput, "not a regular file (FIFO)")
// before any open() that could block or have side effects.
//
// A file that shrinks while it is mapped does not kill the process: the
// pages past its new end read as zeros (core/bus_fault.h), and CheckIntact
// then fails; every reader calls it once it has read the bytes.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace trainscope {

class MappedFile {
 public:
  static Result<MappedFile> Open(const std::string& path);

  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::string_view data() const { return std::string_view(data_, size_); }
  size_t size() const { return size_; }

  // Drops the pages wholly inside [begin, end) from the process (madvise
  // DONTNEED) once a reader is done with them, so a big file read front to
  // back does not stay resident beside what was made of it. The bytes stay
  // readable: a later access reads them from the file again.
  void Release(size_t begin, size_t end) const;
  // Copies |length| bytes at |offset| of the file into |out| with pread,
  // without touching the mapping (no page faults, nothing left resident):
  // for a pass that only looks at the bytes once, such as counting line
  // ends before the real read, or a copy the reader keeps (on this
  // project's VMs a page fault costs more than copying the page). False on a read error or a short
  // read (the file shrank): the caller reads data() instead.
  bool ReadAt(size_t offset, size_t length, char* out) const;
  const std::string& path() const { return path_; }
  // Fails (kInvalidInput, naming the file and both sizes) when the file is
  // shorter now than when it was mapped, or a read faulted past its end:
  // what was read of it is not the file.
  Status CheckIntact() const;
  // |status|, or CheckIntact's failure when the file changed (which then
  // explains whatever the read made of the zeros).
  Status Intact(Status status) const;

 private:
  std::string path_;
  const char* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
  int fd_ = -1;          // kept open for ReadAt
  int fault_slot_ = -1;  // core/bus_fault.h
};

}  // namespace trainscope
