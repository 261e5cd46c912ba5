#include "hostile/hostile_util.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_paths.h"

namespace trainscope::testing {
namespace {

namespace fs = std::filesystem;

TreeEntry Describe(const fs::path& path) {
  TreeEntry entry;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return entry;
  if (S_ISREG(st.st_mode))
    entry.type = 'f';
  else if (S_ISDIR(st.st_mode))
    entry.type = 'd';
  else if (S_ISLNK(st.st_mode))
    entry.type = 'l';
  else if (S_ISFIFO(st.st_mode))
    entry.type = 'p';
  else if (S_ISSOCK(st.st_mode))
    entry.type = 's';
  entry.size = entry.type == 'f' ? static_cast<uint64_t>(st.st_size) : 0;
  entry.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  entry.inode = static_cast<uint64_t>(st.st_ino);
  if (entry.type == 'l') {
    std::error_code ec;
    entry.link_target = fs::read_symlink(path, ec).string();
  }
  return entry;
}

CommandResult RunCaptured(const std::string& cwd, const std::string& command_line) {
  const std::string dir = MakeTempDir("hostile-run");
  std::string command = "cd " + ShellQuote(cwd) + " && " + command_line + " >" +
                        ShellQuote(dir + "/out") + " 2>" + ShellQuote(dir + "/err") + " </dev/null";
  int raw = std::system(command.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  result.out = ReadFileBytes(dir + "/out");
  result.err = ReadFileBytes(dir + "/err");
  std::error_code ec;
  fs::remove_all(dir, ec);
  return result;
}

}  // namespace

TreeSnapshot SnapshotTree(const std::string& root) {
  TreeSnapshot snapshot;
  snapshot[""] = Describe(root);
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::none, ec);
  for (fs::recursive_directory_iterator end; !ec && it != end; it.increment(ec)) {
    snapshot[fs::relative(it->path(), root, ec).string()] = Describe(it->path());
  }
  return snapshot;
}

std::string DiffTrees(const TreeSnapshot& before, const TreeSnapshot& after) {
  std::string diff;
  for (const auto& [path, entry] : before) {
    auto found = after.find(path);
    if (found == after.end()) {
      diff += "removed: " + path + "\n";
    } else if (!(found->second == entry)) {
      diff += "changed: " + path + "\n";
    }
  }
  for (const auto& [path, entry] : after) {
    if (!before.count(path)) diff += "added: " + path + "\n";
  }
  return diff;
}

CommandResult RunTrainscopeIn(const std::string& cwd, const std::vector<std::string>& args) {
  std::string command = ShellQuote(TrainscopeBinary());
  for (const auto& arg : args) command += " " + ShellQuote(arg);
  return RunCaptured(cwd, command);
}

CommandResult RunShell(const std::string& cwd, const std::string& script) {
  // bash, not sh: tests use process substitution <(...).
  return RunCaptured(
      cwd, "TRAINSCOPE=" + ShellQuote(TrainscopeBinary()) + " bash -c " + ShellQuote(script));
}

CommandResult RunUnprivileged(const std::string& cwd, const std::string& args) {
  const std::string prefix =
      ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  return RunShell(cwd, "timeout 20 " + prefix + "\"$TRAINSCOPE\" " + args);
}

bool CanDropPrivileges() {
  return ::geteuid() != 0 ||
         RunShell("/", "setpriv --reuid=65534 --regid=65534 --clear-groups true").exit_code == 0;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool WriteBytes(const std::string& path, const std::string& bytes) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

}  // namespace trainscope::testing
