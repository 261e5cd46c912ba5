// WalkDirectory: a depth-first walk of a directory tree that never stops at
// the first unreadable directory. One directory_iterator per directory, so
// a directory that cannot be listed (or whose listing fails midway) is
// reported to |problem| and the walk goes on with the others. Whether an
// entry is descended into is the caller's choice (|visit| returns true), so
// directory symlinks are followed only where the caller says so (never, in
// trainscope: a link back up would loop).
#pragma once

#include <filesystem>
#include <functional>
#include <system_error>

namespace trainscope {

enum class DirWalkProblem {
  kCannotList,      // the directory could not be opened
  kListingStopped,  // reading its entries failed midway (those seen are kept)
};

void WalkDirectory(const std::filesystem::path& root,
                   const std::function<bool(const std::filesystem::directory_entry&)>& visit,
                   const std::function<void(const std::filesystem::path&, DirWalkProblem,
                                            const std::error_code&)>& problem);

}  // namespace trainscope
