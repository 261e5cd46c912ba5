// Hostile command lines around outputs (classes 1, 6, 7): --json /
// --html onto inputs, onto each other, onto directories and other people's
// files; '-' for stdout; write errors on stdout and on the output file. Each
// test asserts the exit code, the message, and that nothing but the intended
// output was written or removed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>

#include "hostile/hostile_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

namespace fs = std::filesystem;

// A scratch directory holding a copy of the tiny two-rank job ("job") and a
// rule file ("rules.tsv"), so that outputs can land next to the inputs.
struct Workspace {
  std::string root;
  std::string job;
  std::string rules;
  std::string kernel_details;  // an input file inside the job
};

Workspace MakeWorkspace(const std::string& tag) {
  Workspace ws;
  ws.root = MakeTempDir(tag);
  ws.job = ws.root + "/job";
  fs::copy(DataDir() + "/ascend_tiny", ws.job, fs::copy_options::recursive);
  ws.rules = ws.root + "/rules.tsv";
  WriteBytes(ws.rules, "my norm chain\ttype\tPows\n");
  ws.kernel_details = ws.job + "/rank_0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv";
  return ws;
}

// The entries under |root|, without |root| itself: writing a report
// atomically creates and renames a temporary file there, which moves the
// directory's mtime even when, in the end, nothing was added or removed.
TreeSnapshot Contents(const std::string& root) {
  TreeSnapshot snapshot = SnapshotTree(root);
  snapshot.erase("");
  return snapshot;
}

TEST(HostileCliOutput, JsonOntoAProfileFileInsideTheJobIsRefused) {
  Workspace ws = MakeWorkspace("out-onto-input");
  const TreeSnapshot before = Contents(ws.root);
  CommandResult result = RunTrainscopeIn(ws.root, {"analyze", "job", "--json", ws.kernel_details});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_TRUE(Contains(result.err, "--json " + ws.kernel_details +
                                       ": exists and is not a report trainscope wrote, "
                                       "and it lies inside the input directory job"))
      << result.err;
  EXPECT_TRUE(Contains(result.err, "hint: "));
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(DiffTrees(before, Contents(ws.root)), "");
}

TEST(HostileCliOutput, HtmlOntoARuleFileIsRefusedWhateverTheSpelling) {
  Workspace ws = MakeWorkspace("out-onto-rules");
  fs::create_symlink("rules.tsv", ws.root + "/link.html");
  const TreeSnapshot before = Contents(ws.root);
  // Relative, absolute, through "..", and through a symlink: the same inode.
  for (const std::string& spelling : {std::string("rules.tsv"), ws.rules,
                                      std::string("job/../rules.tsv"), std::string("link.html")}) {
    CommandResult result =
        RunTrainscopeIn(ws.root, {"analyze", "job", "--families", "rules.tsv", "--html", spelling});
    EXPECT_EQ(result.exit_code, 2) << spelling << ": " << result.err;
    EXPECT_TRUE(
        Contains(result.err, "--html " + spelling + ": is an input of this run (rules.tsv)"))
        << result.err;
    EXPECT_TRUE(Contains(result.err, "hint: choose another output path")) << result.err;
  }
  EXPECT_EQ(DiffTrees(before, Contents(ws.root)), "");
}

TEST(HostileCliOutput, JsonAndHtmlOntoTheSameFileAreRefused) {
  Workspace ws = MakeWorkspace("out-same");
  const TreeSnapshot before = Contents(ws.root);
  CommandResult result =
      RunTrainscopeIn(ws.root, {"analyze", "job", "--json", "out.json", "--html", "./out.json"});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_TRUE(Contains(result.err, "--json out.json and --html ./out.json name the same file"))
      << result.err;
  EXPECT_EQ(DiffTrees(before, Contents(ws.root)), "");
}

TEST(HostileCliOutput, HtmlDashWritesToStdoutNotToAFileNamedDash) {
  Workspace ws = MakeWorkspace("out-html-dash");
  const TreeSnapshot before = Contents(ws.root);
  CommandResult result = RunTrainscopeIn(ws.root, {"analyze", "job", "--html", "-"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out.rfind("<!DOCTYPE html>", 0), 0u) << result.out.substr(0, 200);
  EXPECT_TRUE(Contains(result.out, "<meta name=\"generator\" content=\"trainscope "));
  EXPECT_FALSE(Contains(result.out, "Input:")) << "the HTML replaces the text summary";
  EXPECT_EQ(DiffTrees(before, Contents(ws.root)), "");
}

TEST(HostileCliOutput, JsonDashAndHtmlDashTogetherAreAUsageError) {
  Workspace ws = MakeWorkspace("out-two-dashes");
  const TreeSnapshot before = Contents(ws.root);
  CommandResult result = RunTrainscopeIn(ws.root, {"analyze", "job", "--json", "-", "--html", "-"});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_TRUE(Contains(result.err, "--json - and --html - both write to standard output"))
      << result.err;
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(DiffTrees(before, Contents(ws.root)), "");
}

TEST(HostileCliOutput, MissingDirectoryAndDirectoryTargetsNameTheOsReason) {
  Workspace ws = MakeWorkspace("out-dirs");
  const TreeSnapshot before = Contents(ws.root);
  CommandResult missing = RunTrainscopeIn(ws.root, {"analyze", "job", "--json", "nodir/out.json"});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_TRUE(Contains(missing.err,
                       "--json nodir/out.json: cannot write in nodir: No such file or directory"))
      << missing.err;
  CommandResult through_file =
      RunTrainscopeIn(ws.root, {"analyze", "job", "--html", "rules.tsv/out.html"});
  EXPECT_EQ(through_file.exit_code, 2) << through_file.err;
  EXPECT_TRUE(Contains(through_file.err, "--html rules.tsv/out.html: Not a directory"))
      << through_file.err;
  CommandResult directory = RunTrainscopeIn(ws.root, {"analyze", "job", "--json", "job"});
  EXPECT_EQ(directory.exit_code, 2) << directory.err;
  EXPECT_TRUE(Contains(directory.err, "--json job: is a directory")) << directory.err;
  EXPECT_EQ(DiffTrees(before, Contents(ws.root)), "");
}

// A character device or FIFO the user names is a stream: written in place,
// never renamed over (a rename onto /dev/null would replace the device node).
TEST(HostileCliOutput, DevNullAndFifosAreWrittenInPlace) {
  Workspace ws = MakeWorkspace("out-stream");
  const TreeSnapshot before = Contents(ws.root);
  CommandResult device = RunTrainscopeIn(ws.root, {"analyze", "job", "--json", "/dev/null"});
  EXPECT_EQ(device.exit_code, 0) << device.err;
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null is no longer a character device";
  EXPECT_EQ(DiffTrees(before, Contents(ws.root)), "");

  ASSERT_EQ(::mkfifo((ws.root + "/report.pipe").c_str(), 0600), 0);
  // The reader is open before trainscope starts (a `cat` started beside it
  // may not be yet, and trainscope refuses a FIFO nobody reads): opened
  // non-blocking, drained by a thread until trainscope has exited.
  const int reader = ::open((ws.root + "/report.pipe").c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  std::atomic<bool> writer_done{false};
  std::string got;
  std::thread drain([&] {
    char buffer[65536];
    while (true) {
      const ssize_t n = ::read(reader, buffer, sizeof buffer);
      if (n > 0) {
        got.append(buffer, static_cast<size_t>(n));
      } else if (n == 0 && writer_done.load()) {
        break;  // no writer left, and none will come
      } else {
        ::usleep(1000);  // no writer yet (0) or nothing to read now (EAGAIN)
      }
    }
  });
  CommandResult fifo = RunTrainscopeIn(ws.root, {"analyze", "job", "--json", "report.pipe"});
  writer_done.store(true);
  drain.join();
  ::close(reader);
  EXPECT_EQ(fifo.exit_code, 0) << fifo.err;
  EXPECT_TRUE(Contains(got, "\"schema\""));
  ASSERT_EQ(::lstat((ws.root + "/report.pipe").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST(HostileCliOutput, UnwritableDirectoryIsRefusedBeforeTheAnalysis) {
  if (!CanDropPrivileges())
    GTEST_SKIP() << "running as root without setpriv: permissions cannot be tested";
  Workspace ws = MakeWorkspace("out-readonly");
  ::chmod(ws.root.c_str(), 0755);  // the unprivileged user reads the job
  fs::create_directory(ws.root + "/ro");
  ::chmod((ws.root + "/ro").c_str(), 0555);
  const TreeSnapshot before = Contents(ws.root);
  CommandResult result = RunUnprivileged(ws.root, "analyze job --json ro/out.json");
  ::chmod((ws.root + "/ro").c_str(), 0755);
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_TRUE(Contains(result.err, "--json ro/out.json: cannot write in ro: Permission denied"))
      << result.err;
  EXPECT_EQ(DiffTrees(before, Contents(ws.root)), "");
}

TEST(HostileCliOutput, SomeoneElsesFileIsKeptAndTrainscopesOwnReportIsReplaced) {
  Workspace ws = MakeWorkspace("out-replace");
  WriteBytes(ws.root + "/notes.json", "{\"mine\": true}\n");
  WriteBytes(ws.root + "/notes.html", "<html><title>my notes</title></html>\n");
  const TreeSnapshot before = Contents(ws.root);
  for (const std::string option : {"--json", "--html"}) {
    const std::string file = option == std::string("--json") ? "notes.json" : "notes.html";
    CommandResult result = RunTrainscopeIn(ws.root, {"analyze", "job", option, file});
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_TRUE(Contains(result.err,
                         option + " " + file + ": exists and is not a report trainscope wrote\n"))
        << result.err;
    EXPECT_TRUE(Contains(result.err, "hint: choose another path, or remove the file yourself"))
        << result.err;
  }
  EXPECT_EQ(DiffTrees(before, Contents(ws.root)), "");

  CommandResult first =
      RunTrainscopeIn(ws.root, {"analyze", "job", "--json", "r.json", "--html", "r.html"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const TreeSnapshot written = Contents(ws.root);
  EXPECT_EQ(DiffTrees(before, written), "added: r.html\nadded: r.json\n");
  CommandResult again =
      RunTrainscopeIn(ws.root, {"analyze", "job", "--json", "r.json", "--html", "r.html"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  // Replaced by a rename (new inodes), and no temporary file left behind.
  EXPECT_EQ(DiffTrees(written, Contents(ws.root)), "changed: r.html\nchanged: r.json\n");
}

TEST(HostileCliOutput, AFailedWriteLeavesTheOldReportWhole) {
  Workspace ws = MakeWorkspace("out-efbig");
  CommandResult first = RunTrainscopeIn(ws.root, {"analyze", "job", "--html", "r.html"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string old_bytes = ReadFileBytes(ws.root + "/r.html");
  const TreeSnapshot before = Contents(ws.root);
  // A 4 KiB file size limit: the report cannot be written (EFBIG, with
  // SIGXFSZ ignored). stdout goes to /dev/null, which the limit spares.
  CommandResult result = RunShell(
      ws.root, "trap '' XFSZ; ulimit -f 4; \"$TRAINSCOPE\" analyze job --html r.html >/dev/null");
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_TRUE(Contains(
      result.err, "r.html: cannot write: File too large\nhint: the existing file is unchanged"))
      << result.err;
  EXPECT_EQ(DiffTrees(before, Contents(ws.root)), "");
  EXPECT_EQ(ReadFileBytes(ws.root + "/r.html"), old_bytes);
}

TEST(HostileCliOutput, WriteErrorsOnStdoutExitOne) {
  Workspace ws = MakeWorkspace("out-full");
  const TreeSnapshot before = Contents(ws.root);
  for (const std::string extra : {"", " --json -", " --html -"}) {
    CommandResult result = RunShell(ws.root, "\"$TRAINSCOPE\" analyze job" + extra + " >/dev/full");
    EXPECT_EQ(result.exit_code, 1) << extra << ": " << result.err;
    EXPECT_TRUE(Contains(result.err,
                         "trainscope: error: writing to standard output: No space left on device"))
        << extra << ": " << result.err;
  }
  CommandResult synth =
      RunShell(ws.root, "\"$TRAINSCOPE\" synth --out s --ranks 1 --steps 1 --layers 1 >/dev/full");
  EXPECT_EQ(synth.exit_code, 1) << synth.err;
  EXPECT_TRUE(Contains(synth.err, "writing to standard output: No space left on device"))
      << synth.err;
  CommandResult help = RunShell(ws.root, "\"$TRAINSCOPE\" --help >/dev/full");
  EXPECT_EQ(help.exit_code, 1) << help.err;
  fs::remove_all(ws.root + "/s");  // synth's own job; the point was its stdout
  EXPECT_EQ(DiffTrees(before, Contents(ws.root)), "");
}

TEST(HostileCliOutput, AFullStderrDoesNotCrash) {
  Workspace ws = MakeWorkspace("err-full");
  const TreeSnapshot before = Contents(ws.root);
  // The error message cannot be written either: the exit code still says why.
  CommandResult missing = RunShell(ws.root, "\"$TRAINSCOPE\" analyze absent 2>/dev/full");
  EXPECT_EQ(missing.exit_code, 2) << missing.out;
  CommandResult timings =
      RunShell(ws.root, "\"$TRAINSCOPE\" analyze job --timings --json - 2>/dev/full");
  EXPECT_EQ(timings.exit_code, 0);
  EXPECT_EQ(DiffTrees(before, Contents(ws.root)), "");
}

}  // namespace
}  // namespace trainscope::testing
