// Hostile options (classes 2, 3, 6, 8): --rank not in the job,
// absurd --threads, rule files given as pipes, FIFOs without a writer,
// directories, devices and symlink loops.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "hostile/hostile_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

namespace fs = std::filesystem;

std::string CopyTinyJob(const std::string& root) {
  fs::copy(DataDir() + "/ascend_tiny", root + "/job", fs::copy_options::recursive);
  return root + "/job";
}

TEST(HostileCliOptions, RankNotInTheJobListsTheRanksPresent) {
  const std::string root = MakeTempDir("opt-rank");
  CopyTinyJob(root);
  const TreeSnapshot before = SnapshotTree(root);
  CommandResult result =
      RunTrainscopeIn(root, {"analyze", "job", "--rank", "99", "--json", "r.json"});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_TRUE(
      Contains(result.err, "--rank 99: rank 99 is not in the job (ranks present: 0, 1)\nhint: "))
      << result.err;
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(DiffTrees(before, SnapshotTree(root)), "") << "no report for a rejected run";
  CommandResult present = RunTrainscopeIn(root, {"analyze", "job", "--rank", "1", "--no-color"});
  EXPECT_EQ(present.exit_code, 0) << present.err;
}

TEST(HostileCliOptions, ThreadCountsAreClampedOrRefused) {
  const std::string root = MakeTempDir("opt-threads");
  CopyTinyJob(root);
  const TreeSnapshot before = SnapshotTree(root);
  CommandResult many =
      RunTrainscopeIn(root, {"analyze", "job", "--threads", "40000", "--json", "-"});
  EXPECT_EQ(many.exit_code, 0) << many.err;
  EXPECT_TRUE(Contains(many.out, "\"schema\": \"trainscope.analysis/3\""));
  CommandResult zero = RunTrainscopeIn(root, {"analyze", "job", "--threads", "0", "--json", "-"});
  EXPECT_EQ(zero.exit_code, 0) << zero.err;  // 0 = the default
  EXPECT_EQ(zero.out, many.out);
  CommandResult negative = RunTrainscopeIn(root, {"analyze", "job", "--threads", "-3"});
  EXPECT_EQ(negative.exit_code, 2) << negative.err;
  EXPECT_TRUE(Contains(negative.err, "--threads")) << negative.err;
  EXPECT_EQ(DiffTrees(before, SnapshotTree(root)), "");
}

TEST(HostileCliOptions, RuleFilesMayBePipes) {
  const std::string root = MakeTempDir("opt-pipe");
  CopyTinyJob(root);
  const TreeSnapshot before = SnapshotTree(root);
  CommandResult result = RunShell(
      root,
      "\"$TRAINSCOPE\" analyze job --families <(printf 'my norm chain\\ttype\\tPows\\n') --json -");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(Contains(result.out, "\"name\": \"my norm chain\"")) << "the piped rule was not read";
  // A pipe with more than one pipe buffer (64 KiB) of comments before the rule.
  CommandResult big = RunShell(root,
                               "\"$TRAINSCOPE\" analyze job --families <(for i in $(seq 3000); do "
                               "echo '# a comment line that is long enough to fill pipes'; done; "
                               "printf 'my norm chain\\ttype\\tPows\\n') --json -");
  ASSERT_EQ(big.exit_code, 0) << big.err;
  EXPECT_TRUE(Contains(big.out, "\"name\": \"my norm chain\""));
  EXPECT_EQ(DiffTrees(before, SnapshotTree(root)), "");
}

TEST(HostileCliOptions, AFifoWithoutAWriterTimesOutInsteadOfHanging) {
  const std::string root = MakeTempDir("opt-fifo");
  CopyTinyJob(root);
  ASSERT_EQ(::mkfifo((root + "/rules.fifo").c_str(), 0600), 0);
  const TreeSnapshot before = SnapshotTree(root);
  const auto start = std::chrono::steady_clock::now();
  CommandResult result = RunShell(
      root, "TRAINSCOPE_READ_TIMEOUT_S=0.5 \"$TRAINSCOPE\" analyze job --fingerprints rules.fifo");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_TRUE(Contains(result.err, "rules.fifo: no data arrived within 0.5 s")) << result.err;
  EXPECT_TRUE(Contains(result.err, "TRAINSCOPE_READ_TIMEOUT_S")) << result.err;
  EXPECT_LT(seconds, 5.0);
  EXPECT_EQ(DiffTrees(before, SnapshotTree(root)), "");
}

TEST(HostileCliOptions, RuleFilesThatAreNotFilesAreRefusedWithTheReason) {
  const std::string root = MakeTempDir("opt-notfile");
  CopyTinyJob(root);
  fs::create_directory(root + "/rules.d");
  fs::create_symlink("loop", root + "/loop");
  const TreeSnapshot before = SnapshotTree(root);
  struct Case {
    std::string option, path, message;
  };
  for (const Case& c :
       {Case{"--families", "rules.d", "rules.d: is a directory, expected a regular file or a pipe"},
        Case{"--fingerprints", "/dev/zero", "/dev/zero: is a character device"},
        Case{"--activity-rules", "loop", "loop: cannot open: Too many levels of symbolic links"},
        Case{"--families", "absent.tsv", "absent.tsv: cannot open: No such file or directory"}}) {
    CommandResult result = RunTrainscopeIn(root, {"analyze", "job", c.option, c.path});
    EXPECT_EQ(result.exit_code, 2) << c.option << " " << c.path << ": " << result.err;
    EXPECT_TRUE(Contains(result.err, c.message)) << result.err;
    EXPECT_TRUE(Contains(result.err, "hint: ")) << result.err;
  }
  EXPECT_EQ(DiffTrees(before, SnapshotTree(root)), "");
}

}  // namespace
}  // namespace trainscope::testing
