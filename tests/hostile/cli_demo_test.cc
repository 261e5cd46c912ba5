// `demo --out DIR` and `synth --out DIR` never delete what trainscope did not
// write (class 1): `--out .` used to empty the current directory,
// even when the command then failed on a bad option.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "hostile/hostile_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

namespace fs = std::filesystem;

// A directory with something of the user's in it.
std::string MakeUserDir(const std::string& tag) {
  const std::string root = MakeTempDir(tag);
  WriteBytes(root + "/thesis.tex", "\\documentclass{article}\n");
  WriteBytes(root + "/data/run1.csv", "a,b\n1,2\n");
  return root;
}

TEST(HostileCliDemo, OutDotInAUsedDirectoryLeavesItUntouched) {
  const std::string root = MakeUserDir("demo-dot");
  const TreeSnapshot before = SnapshotTree(root);
  CommandResult result = RunTrainscopeIn(root, {"demo", "--out", ".", "--ranks", "1"});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_TRUE(Contains(result.err, "demo --out .: is not empty and holds no trainscope demo job"))
      << result.err;
  EXPECT_TRUE(Contains(result.err, "hint: choose a new or empty directory with --out"))
      << result.err;
  EXPECT_EQ(DiffTrees(before, SnapshotTree(root)), "");
}

TEST(HostileCliDemo, ABadOptionIsReportedBeforeAnythingIsTouched) {
  const std::string root = MakeUserDir("demo-badopt");
  ASSERT_EQ(RunTrainscopeIn(root, {"demo", "--out", "d", "--ranks", "1"}).exit_code, 0);
  const TreeSnapshot before = SnapshotTree(root);
  for (const char* out : {".", "d"}) {
    CommandResult result = RunTrainscopeIn(root, {"demo", "--out", out, "--ranks", "0"});
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_TRUE(Contains(result.err, "ranks must be in [1, 16384]")) << result.err;
  }
  // A bad --html is found before the previous demo job is cleared.
  CommandResult html =
      RunTrainscopeIn(root, {"demo", "--out", "d", "--ranks", "1", "--html", "nodir/r.html"});
  EXPECT_EQ(html.exit_code, 2) << html.err;
  EXPECT_TRUE(
      Contains(html.err, "--html nodir/r.html: cannot write in nodir: No such file or directory"))
      << html.err;
  EXPECT_EQ(DiffTrees(before, SnapshotTree(root)), "");
}

TEST(HostileCliDemo, ARerunReplacesExactlyItsOwnJob) {
  const std::string root = MakeUserDir("demo-rerun");
  CommandResult first =
      RunTrainscopeIn(root, {"demo", "--out", "d", "--ranks", "1", "--json", "d/r.json"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const TreeSnapshot first_tree = SnapshotTree(root);
  CommandResult second =
      RunTrainscopeIn(root, {"demo", "--out", "d", "--ranks", "1", "--json", "d/r.json"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  // The same names (new files), the user's files untouched.
  const TreeSnapshot second_tree = SnapshotTree(root);
  ASSERT_EQ(first_tree.size(), second_tree.size());
  for (const auto& [path, entry] : first_tree) {
    ASSERT_TRUE(second_tree.count(path)) << path;
    // The root itself changes: the job is staged in a hidden directory
    // beside d and renamed onto it (synth/synth.h).
    if (path.empty()) continue;
    if (path.rfind("d", 0) != 0 || path == "data" || path.rfind("data/", 0) == 0) {
      EXPECT_EQ(entry, second_tree.at(path)) << path;
    }
  }

  // A file the user added to the demo job: the job is no longer only ours.
  WriteBytes(root + "/d/notes.txt", "mine\n");
  const TreeSnapshot before = SnapshotTree(root);
  CommandResult refused = RunTrainscopeIn(root, {"demo", "--out", "d", "--ranks", "1"});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_TRUE(
      Contains(refused.err, "demo --out d: holds notes.txt, which trainscope did not write"))
      << refused.err;
  EXPECT_EQ(DiffTrees(before, SnapshotTree(root)), "");
}

TEST(HostileCliDemo, ASymlinkOrAForgedManifestCannotReachOutside) {
  const std::string root = MakeUserDir("demo-forged");
  ASSERT_EQ(RunTrainscopeIn(root, {"demo", "--out", "d", "--ranks", "1"}).exit_code, 0);
  // A manifest that lists the user's files outside d, and a symlink into them.
  WriteBytes(root + "/d/trainscope-manifest.txt",
             ReadFileBytes(root + "/d/trainscope-manifest.txt") +
                 "f ../thesis.tex\nf /etc/passwd\nd ../data\n");
  fs::create_symlink("../data", root + "/d/data-link");
  const TreeSnapshot before = SnapshotTree(root);
  CommandResult result = RunTrainscopeIn(root, {"demo", "--out", "d", "--ranks", "1"});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_TRUE(Contains(result.err, "holds data-link, which trainscope did not write"))
      << result.err;
  EXPECT_EQ(DiffTrees(before, SnapshotTree(root)), "");
  fs::remove(root + "/d/data-link");
  CommandResult rerun = RunTrainscopeIn(root, {"demo", "--out", "d", "--ranks", "1"});
  EXPECT_EQ(rerun.exit_code, 0) << rerun.err;
  EXPECT_TRUE(fs::exists(root + "/thesis.tex"));
  EXPECT_TRUE(fs::exists(root + "/data/run1.csv"));
}

TEST(HostileCliDemo, ReportsOntoTheJobOrTheUsersFilesAreRefused) {
  const std::string root = MakeUserDir("demo-report-target");
  ASSERT_EQ(RunTrainscopeIn(root, {"demo", "--out", "d", "--ranks", "1"}).exit_code, 0);
  const TreeSnapshot before = SnapshotTree(root);
  CommandResult onto_job = RunTrainscopeIn(
      root, {"demo", "--out", "d", "--ranks", "1", "--html", "d/ground_truth.json"});
  EXPECT_EQ(onto_job.exit_code, 2) << onto_job.err;
  EXPECT_TRUE(Contains(onto_job.err,
                       "--html d/ground_truth.json: exists and is not a report trainscope wrote"))
      << onto_job.err;
  CommandResult onto_user =
      RunTrainscopeIn(root, {"demo", "--out", "d", "--ranks", "1", "--json", "thesis.tex"});
  EXPECT_EQ(onto_user.exit_code, 2) << onto_user.err;
  EXPECT_TRUE(
      Contains(onto_user.err, "--json thesis.tex: exists and is not a report trainscope wrote"))
      << onto_user.err;
  EXPECT_EQ(DiffTrees(before, SnapshotTree(root)), "");
}

TEST(HostileCliDemo, JsonOnStdoutStaysValidJson) {
  const std::string root = MakeTempDir("demo-json-dash");
  CommandResult result =
      RunTrainscopeIn(root, {"demo", "--out", "d", "--ranks", "1", "--json", "-"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out.rfind("{", 0), 0u) << result.out.substr(0, 200);
  EXPECT_TRUE(Contains(result.err, "Demo job (unfused baseline, 1 ranks"))
      << "the banner goes to stderr";
}

TEST(HostileCliDemo, SynthStillWantsAnEmptyOrAbsentDirectory) {
  const std::string root = MakeUserDir("synth-used");
  const TreeSnapshot before = SnapshotTree(root);
  CommandResult result = RunTrainscopeIn(root, {"synth", "--out", ".", "--ranks", "1"});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_TRUE(Contains(result.err, "synth: . is not empty\nhint: ")) << result.err;
  EXPECT_EQ(DiffTrees(before, SnapshotTree(root)), "");
}

}  // namespace
}  // namespace trainscope::testing
