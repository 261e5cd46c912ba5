// Hostile paths for the exports (--perfetto, --sqlite, --csv): someone
// else's file, a missing or unwritable directory, an input, stdout. Each
// asserts the exit code, the message, and that nothing was written or
// removed.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "hostile/hostile_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

namespace fs = std::filesystem;

struct ExportWorkspace {
  std::string root;
  std::string job;
};

ExportWorkspace MakeExportWorkspace(const std::string& tag) {
  ExportWorkspace ws;
  ws.root = MakeTempDir(tag);
  ws.job = ws.root + "/job";
  fs::copy(DataDir() + "/ascend_tiny", ws.job, fs::copy_options::recursive);
  return ws;
}

TEST(HostileExportPaths, SomeoneElsesFileIsNotOverwritten) {
  ExportWorkspace ws = MakeExportWorkspace("export-foreign");
  ASSERT_TRUE(WriteBytes(ws.root + "/notes.json", "{\"mine\": true}\n"));
  ASSERT_TRUE(WriteBytes(ws.root + "/notes.db", "not a database\n"));
  const TreeSnapshot before = SnapshotTree(ws.root);
  for (const auto& [option, file] :
       {std::pair<std::string, std::string>{"--perfetto", "notes.json"},
        {"--sqlite", "notes.db"}}) {
    SCOPED_TRACE(option);
    const CommandResult r = RunTrainscopeIn(ws.root, {"analyze", "job", option, file});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(
        Contains(r.err, option + " " + file + ": exists and is not a report trainscope wrote"))
        << r.err;
    EXPECT_EQ(DiffTrees(before, SnapshotTree(ws.root)), "");
  }
}

TEST(HostileExportPaths, MissingDirectoryAndStdoutAreRefused) {
  ExportWorkspace ws = MakeExportWorkspace("export-missing-dir");
  const TreeSnapshot before = SnapshotTree(ws.root);
  CommandResult r = RunTrainscopeIn(ws.root, {"analyze", "job", "--sqlite", "no/such/out.db"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "--sqlite no/such/out.db: cannot write in no/such")) << r.err;
  r = RunTrainscopeIn(ws.root, {"analyze", "job", "--sqlite", "-"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "--sqlite -: the export is written to a file")) << r.err;
  r = RunTrainscopeIn(ws.root, {"analyze", "job", "--perfetto", "job"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "--perfetto job: is a directory")) << r.err;
  EXPECT_TRUE(Contains(r.err, "job/trace.json")) << r.err;
  EXPECT_EQ(DiffTrees(before, SnapshotTree(ws.root)), "");
}

TEST(HostileExportPaths, CsvRefusesForeignFilesAndInputs) {
  ExportWorkspace ws = MakeExportWorkspace("export-csv-foreign");
  ASSERT_TRUE(WriteBytes(ws.root + "/tables/steps.csv", "my,own\r\n"));
  ASSERT_TRUE(WriteBytes(ws.root + "/plain.txt", "x"));
  const TreeSnapshot before = SnapshotTree(ws.root);
  CommandResult r = RunTrainscopeIn(ws.root, {"analyze", "job", "--csv", "tables"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err,
                       "--csv tables: tables/steps.csv exists and trainscope did not "
                       "write it (not in trainscope-csv-manifest.txt)"))
      << r.err;
  r = RunTrainscopeIn(ws.root, {"analyze", "job", "--csv", "job/rank_0_ascend_pt/tables"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "is inside the input job")) << r.err;
  r = RunTrainscopeIn(ws.root, {"analyze", "job", "--csv", "plain.txt"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "--csv plain.txt: exists and is not a directory")) << r.err;
  r = RunTrainscopeIn(ws.root, {"analyze", "job", "--csv", "out", "--perfetto", "./out"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "--csv out and --perfetto ./out name the same path")) << r.err;
  EXPECT_EQ(DiffTrees(before, SnapshotTree(ws.root)), "");
  // Someone's manifest-named file is not ours either.
  ASSERT_TRUE(WriteBytes(ws.root + "/other/trainscope-csv-manifest.txt", "steps.csv\n"));
  const TreeSnapshot with_other = SnapshotTree(ws.root);
  r = RunTrainscopeIn(ws.root, {"analyze", "job", "--csv", "other"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "trainscope-csv-manifest.txt exists and trainscope did not write it"))
      << r.err;
  EXPECT_EQ(DiffTrees(with_other, SnapshotTree(ws.root)), "");
}

TEST(HostileExportPaths, UnwritableDirectoryIsRefusedBeforeAnyWork) {
  if (!CanDropPrivileges()) GTEST_SKIP() << "running as root without setpriv";
  ExportWorkspace ws = MakeExportWorkspace("export-unwritable");
  fs::create_directories(ws.root + "/locked");
  fs::permissions(ws.root + "/locked", fs::perms::owner_read | fs::perms::owner_exec |
                                           fs::perms::group_read | fs::perms::group_exec |
                                           fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(ws.root, fs::perms::all);
  fs::permissions(ws.job, fs::perms::all);
  const TreeSnapshot before = SnapshotTree(ws.root);
  CommandResult r = RunUnprivileged(ws.root, "analyze job --csv locked/tables");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(Contains(r.err, "--csv locked/tables: cannot create it in locked")) << r.err;
  r = RunUnprivileged(ws.root, "analyze job --perfetto locked/trace.json");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(Contains(r.err, "--perfetto locked/trace.json: cannot write in locked")) << r.err;
  EXPECT_EQ(DiffTrees(before, SnapshotTree(ws.root)), "");
}

TEST(HostileExportPaths, OwnOutputsAreReplacedAndNothingElseIsLeft) {
  ExportWorkspace ws = MakeExportWorkspace("export-own");
  for (int run = 0; run < 2; ++run) {
    const CommandResult r = RunTrainscopeIn(
        ws.root, {"analyze", "job", "--perfetto", "t.json", "--sqlite", "t.db", "--csv", "csv"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  // No staging or temporary file left beside the outputs.
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(ws.root))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"csv", "job", "t.db", "t.json"}));
}

}  // namespace
}  // namespace trainscope::testing
