#include "core/dir_walk.h"

#include <utility>
#include <vector>

namespace trainscope {

void WalkDirectory(const std::filesystem::path& root,
                   const std::function<bool(const std::filesystem::directory_entry&)>& visit,
                   const std::function<void(const std::filesystem::path&, DirWalkProblem,
                                            const std::error_code&)>& problem) {
  namespace fs = std::filesystem;
  std::vector<fs::path> pending{root};
  while (!pending.empty()) {
    const fs::path dir = std::move(pending.back());
    pending.pop_back();
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) {
      problem(dir, DirWalkProblem::kCannotList, ec);
      continue;
    }
    for (const fs::directory_iterator end; it != end;) {
      if (visit(*it)) pending.push_back(it->path());
      it.increment(ec);
      if (ec) {
        problem(dir, DirWalkProblem::kListingStopped, ec);
        break;
      }
    }
  }
}

}  // namespace trainscope
