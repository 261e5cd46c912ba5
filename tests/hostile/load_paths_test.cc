// Class 7 and neighbours: messages say what really happened to a path (a
// symlink loop, permission denied, a dangling link), the walk of a job
// directory survives loops and unreadable directories, and a path given
// twice loads once.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "hostile/load_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

namespace fs = std::filesystem;

TEST(HostileLoadPaths, SymlinkLoopSaysSo) {
  const std::string dir = MakeTempDir("load-loop");
  fs::create_symlink("loop", dir + "/loop");
  fs::create_symlink("b.json", dir + "/a.json");
  fs::create_symlink("a.json", dir + "/b.json");
  const TreeSnapshot before = SnapshotTree(dir);
  for (const char* path : {"loop", "a.json", "loop/x"}) {
    CommandResult run = RunTrainscopeIn(dir, {"analyze", path});
    EXPECT_EQ(run.exit_code, 2) << path << ": " << run.err;
    EXPECT_TRUE(
        Has(run.err, std::string(path) + ": cannot access: Too many levels of symbolic links"))
        << run.err;
    EXPECT_FALSE(Has(run.err, "no such file")) << run.err;
  }
  CommandResult dangling = RunTrainscopeIn(dir, {"analyze", "gone"});
  fs::create_symlink("nowhere", dir + "/dangling");
  dangling = RunTrainscopeIn(dir, {"analyze", "dangling"});
  EXPECT_EQ(dangling.exit_code, 2);
  EXPECT_TRUE(Has(dangling.err, "dangling: no such file or directory (dangling symbolic link)"))
      << dangling.err;
  fs::remove(dir + "/dangling");
  EXPECT_EQ(DiffTrees(before, SnapshotTree(dir)), "");
}

TEST(HostileLoadPaths, LoopsInsideAJobDirAreListedAndTheWalkEnds) {
  const std::string dir = MakeSynthJob("load-loop-job");
  ASSERT_FALSE(dir.empty());
  fs::create_directories(dir + "/job/sub");
  fs::create_symlink("..", dir + "/job/sub/up");            // a directory loop
  fs::create_symlink("self.json", dir + "/job/self.json");  // a file loop
  fs::create_symlink("missing.json", dir + "/job/gone.json");
  const TreeSnapshot before = SnapshotTree(dir);
  CommandResult run = RunShell(dir, "timeout 20 \"$TRAINSCOPE\" analyze job --no-color");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(Has(run.out, "Input: 2 ranks")) << run.out;
  EXPECT_TRUE(
      Has(run.out, "skipped: job/self.json: symbolic link: Too many levels of symbolic links"))
      << run.out;
  EXPECT_TRUE(Has(run.out, "skipped: job/gone.json: symbolic link: dangling symbolic link"))
      << run.out;
  EXPECT_TRUE(Has(run.out, "skipped: job/sub/up: symbolic link to a directory: not followed"))
      << run.out;
  EXPECT_EQ(DiffTrees(before, SnapshotTree(dir)), "");
}

TEST(HostileLoadPaths, PermissionDeniedSaysSo) {
  if (!CanDropPrivileges())
    GTEST_SKIP() << "running as root without setpriv: permissions cannot be tested";
  const std::string dir = MakeSynthJob("load-perm");
  ASSERT_FALSE(dir.empty());
  ::chmod(dir.c_str(), 0755);
  ASSERT_TRUE(WriteBytes(dir + "/job/locked.json", KinetoTraceJson(true)));
  ::chmod((dir + "/job/locked.json").c_str(), 0);
  fs::create_directories(dir + "/job/secret/deeper");
  ::chmod((dir + "/job/secret").c_str(), 0);
  const TreeSnapshot before = SnapshotTree(dir);

  // Inside a job dir: listed, and the rest is analysed.
  CommandResult run = RunUnprivileged(dir, "analyze job --no-color");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(Has(run.out, "Input: 2 ranks")) << run.out;
  EXPECT_TRUE(Has(run.out, "skipped: job/locked.json: cannot open: Permission denied")) << run.out;
  EXPECT_TRUE(Has(run.out, "skipped: job/secret: cannot list directory: Permission denied"))
      << run.out;
  // Given directly: an error that says so (not "no such file").
  run = RunUnprivileged(dir, "analyze job/locked.json");
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(Has(run.err,
                  "job/locked.json: not a profile this tool reads: cannot open: Permission denied"))
      << run.err;
  run = RunUnprivileged(dir, "analyze job/secret/deeper");
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(Has(run.err, "job/secret/deeper: cannot access: Permission denied")) << run.err;
  EXPECT_EQ(DiffTrees(before, SnapshotTree(dir)), "");
  ::chmod((dir + "/job/secret").c_str(), 0755);
}

TEST(HostileLoadPaths, OnePathInSeveralSpellingsLoadsOnce) {
  const std::string dir = MakeSynthJob("load-twice");
  ASSERT_FALSE(dir.empty());
  fs::create_symlink("job", dir + "/alias");
  const TreeSnapshot before = SnapshotTree(dir);
  CommandResult run =
      RunTrainscopeIn(dir, {"analyze", "job", "./job/", dir + "/job", "alias", "--no-color"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(Has(run.out, "Input: 2 ranks")) << run.out;
  EXPECT_EQ(DiffTrees(before, SnapshotTree(dir)), "");
}

TEST(HostileLoadPaths, ProfilerOutputThatIsAFileFailsThatRank) {
  const std::string dir = MakeSynthJob("load-output-file");
  ASSERT_FALSE(dir.empty());
  const std::string output = SynthRankDir(dir + "/job", 1) + "/ASCEND_PROFILER_OUTPUT";
  fs::remove_all(output);
  ASSERT_TRUE(WriteBytes(output, "not a directory\n"));
  const TreeSnapshot before = SnapshotTree(dir);
  CommandResult run = RunTrainscopeIn(dir, {"analyze", "job", "--no-color"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(Has(run.out, "Input: 1 ranks")) << run.out;
  EXPECT_TRUE(Has(run.out, "/ASCEND_PROFILER_OUTPUT: not a directory")) << run.out;
  EXPECT_EQ(DiffTrees(before, SnapshotTree(dir)), "");
}

TEST(HostileLoadPaths, EmptyDirectoryIsExit2WithHint) {
  const std::string dir = MakeTempDir("load-empty");
  fs::create_directories(dir + "/job/empty");
  const TreeSnapshot before = SnapshotTree(dir);
  CommandResult run = RunTrainscopeIn(dir, {"analyze", "job"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(Has(run.err, "job: no profile found\nhint: ")) << run.err;
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(DiffTrees(before, SnapshotTree(dir)), "");
}

}  // namespace
}  // namespace trainscope::testing
