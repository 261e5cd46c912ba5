// Per-rank pieces of an export, kept on disk until the job is combined.
//
// Ranks are analysed in parallel and in any order, and each rank's profile is
// freed once analysed, so each rank's part of the trace is rendered while
// its profile is alive and appended here (one anonymous file: created in the
// output's directory and unlinked at once, so nothing is left behind even
// after a crash). At the end the pieces are copied out in rank order.
// Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "core/status.h"

namespace trainscope::exports {

class StagingFile {
 public:
  // |near|: the output path; the staging file is made in its directory.
  static Result<std::unique_ptr<StagingFile>> Create(const std::string& near);
  ~StagingFile();
  StagingFile(const StagingFile&) = delete;
  StagingFile& operator=(const StagingFile&) = delete;

  // Stores |content| under |key| (a later Put of the same key replaces it).
  Status Put(std::pair<int64_t, int64_t> key, std::string_view content);
  // Every piece in key order, in chunks of at most 4 MiB.
  Status ForEach(
      const std::function<Status(std::pair<int64_t, int64_t>, std::string_view)>& visit) const;
  int64_t bytes() const { return end_; }

 private:
  StagingFile(std::string near, int fd) : near_(std::move(near)), fd_(fd) {}
  std::string near_;
  int fd_ = -1;
  mutable std::mutex mutex_;
  int64_t end_ = 0;
  std::map<std::pair<int64_t, int64_t>, std::pair<int64_t, int64_t>> pieces_;  // offset, size
};

}  // namespace trainscope::exports
