// MappedFile: a read-only view of a whole file, memory-mapped.
//
// The bytes stay valid while the MappedFile lives; readers hand out
// string_views into it. Empty files map to an empty view (mmap of length 0 is
// not allowed, so no mapping is made).
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
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  const char* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
};

}  // namespace trainscope
