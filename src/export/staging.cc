#include "export/staging.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

namespace trainscope::exports {
namespace {

Status StagingError(const std::string& near, const char* what, int err) {
  return IoError(
      fmt::format("{}: {} a staging file beside it: {}\nhint: nothing was written; "
                  "free some space or choose another directory",
                  near, what, std::strerror(err)));
}

}  // namespace

Result<std::unique_ptr<StagingFile>> StagingFile::Create(const std::string& near) {
  std::filesystem::path dir = std::filesystem::path(near).parent_path();
  if (dir.empty()) dir = ".";
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string name =
        (dir / fmt::format(".trainscope-staging-{}-{}", ::getpid(), counter.fetch_add(1))).string();
    const int fd = ::open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
      if (errno == EEXIST) continue;
      return StagingError(near, "cannot create", errno);
    }
    ::unlink(name.c_str());  // ours (O_EXCL); the open descriptor keeps the data
    return std::unique_ptr<StagingFile>(new StagingFile(near, fd));
  }
  return StagingError(near, "cannot create", EEXIST);
}

StagingFile::~StagingFile() {
  if (fd_ >= 0) ::close(fd_);
}

Status StagingFile::Put(std::pair<int64_t, int64_t> key, std::string_view content) {
  std::lock_guard<std::mutex> lock(mutex_);
  const int64_t offset = end_;
  std::string_view left = content;
  int64_t at = offset;
  while (!left.empty()) {
    const ssize_t n = ::pwrite(fd_, left.data(), left.size(), at);
    if (n < 0) {
      if (errno == EINTR) continue;
      return StagingError(near_, "cannot write", errno);
    }
    left.remove_prefix(static_cast<size_t>(n));
    at += n;
  }
  end_ = at;
  pieces_[key] = {offset, static_cast<int64_t>(content.size())};
  return Status::Ok();
}

Status StagingFile::ForEach(
    const std::function<Status(std::pair<int64_t, int64_t>, std::string_view)>& visit) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string buffer;
  for (const auto& [key, piece] : pieces_) {
    int64_t at = piece.first;
    int64_t left = piece.second;
    while (left > 0) {
      buffer.resize(static_cast<size_t>(std::min<int64_t>(left, int64_t{1} << 22)));
      const ssize_t n = ::pread(fd_, buffer.data(), buffer.size(), at);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return StagingError(near_, "cannot read back", n < 0 ? errno : EIO);
      buffer.resize(static_cast<size_t>(n));
      TS_RETURN_IF_ERROR(visit(key, buffer));
      at += n;
      left -= n;
    }
  }
  return Status::Ok();
}

}  // namespace trainscope::exports
