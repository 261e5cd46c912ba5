// Helpers for the hostile-input tests: run the real binary in a chosen
// directory and prove that it wrote or removed nothing it should not have.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "golden/cli_test_util.h"

namespace trainscope::testing {

// One entry of a directory tree, as seen without following symlinks.
struct TreeEntry {
  char type = '?';  // 'f' file, 'd' directory, 'l' symlink, 'p' FIFO, 's' socket, '?' other
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  uint64_t inode = 0;
  std::string link_target;  // for 'l'
  bool operator==(const TreeEntry&) const = default;
};
using TreeSnapshot = std::map<std::string, TreeEntry>;  // path relative to the root -> entry

// Everything under |root| (the root itself included as ""), recursively,
// symlinks not followed, FIFOs never opened.
TreeSnapshot SnapshotTree(const std::string& root);

// "" when equal; else one line per added, removed or changed path.
std::string DiffTrees(const TreeSnapshot& before, const TreeSnapshot& after);

// Runs trainscope with |args| with |cwd| as working directory (stdin from
// /dev/null; stdout and stderr captured as in RunTrainscope).
CommandResult RunTrainscopeIn(const std::string& cwd, const std::vector<std::string>& args);

// Runs `sh -c |script|` with $TRAINSCOPE set to the binary and the working
// directory |cwd|; captures stdout, stderr and the exit code. For redirections
// the other helpers cannot express (> /dev/full, <(...) pipes, FIFOs).
CommandResult RunShell(const std::string& cwd, const std::string& script);

// Runs `trainscope ARGS` (|args| is shell text) as an unprivileged user
// (nobody, through setpriv) when the tests run as root, since root reads and
// writes any file and permission checks could never fail; as itself otherwise.
CommandResult RunUnprivileged(const std::string& cwd, const std::string& args);
// False when running as root and setpriv cannot drop privileges.
bool CanDropPrivileges();

// Writes |bytes| to |path| (creating parent directories); false on failure.
// Whether |part| occurs in |text|.
bool Contains(const std::string& text, const std::string& part);

bool WriteBytes(const std::string& path, const std::string& bytes);

}  // namespace trainscope::testing
