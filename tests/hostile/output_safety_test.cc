// Hostile outputs: links at output paths (never followed), stale
// temporaries of killed runs (removed, only ours), FIFOs nobody reads
// (refused, never waited on), empty paths and absurd numbers (usage errors),
// spreadsheet formulas in CSV cells (neutralised), and compare on damaged,
// identical or unrelated inputs (said before any verdict).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/safe_text.h"
#include "hostile/hostile_util.h"
#include "report/number_text.h"
#include "report/text_report.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

namespace fs = std::filesystem;

std::string CopyTiny(const std::string& root, const std::string& name = "job") {
  fs::copy(DataDir() + "/ascend_tiny", root + "/" + name, fs::copy_options::recursive);
  return root + "/" + name;
}

std::string KernelDetails(const std::string& job, int rank) {
  return fmt::format("{}/rank_{}_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", job, rank);
}

// The PID of a process that has exited and been reaped: no process has it
// (until the kernel reuses it, which takes a full wrap of the PID space).
int DeadPid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return static_cast<int>(child);
}

TEST(HostileOutputSafety, CsvNeverWritesThroughALinkToAnInput) {
  const std::string root = MakeTempDir("out-csv-link");
  const std::string job = CopyTiny(root);
  CommandResult first = RunTrainscopeIn(root, {"analyze", "job", "--csv", "out"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  // A table file of ours replaced by a link to the input.
  fs::remove(root + "/out/steps.csv");
  fs::create_symlink(fs::absolute(KernelDetails(job, 0)), root + "/out/steps.csv");
  const std::string input = ReadFileBytes(KernelDetails(job, 0));
  const TreeSnapshot before = SnapshotTree(root);
  CommandResult second = RunTrainscopeIn(root, {"analyze", "job", "--csv", "out"});
  EXPECT_EQ(second.exit_code, 2) << second.err;
  EXPECT_TRUE(Contains(second.err, "--csv out: out/steps.csv is a symlink")) << second.err;
  EXPECT_TRUE(Contains(second.err, "writes no output through a link")) << second.err;
  EXPECT_EQ(ReadFileBytes(KernelDetails(job, 0)), input);
  EXPECT_EQ(DiffTrees(before, SnapshotTree(root)), "");
  // A dangling link as DIR: a usage error too, nothing created.
  fs::create_symlink("nowhere/at/all", root + "/dangling");
  CommandResult dangling = RunTrainscopeIn(root, {"analyze", "job", "--csv", "dangling"});
  EXPECT_EQ(dangling.exit_code, 2) << dangling.err;
  EXPECT_TRUE(Contains(dangling.err, "--csv dangling: is a symlink to nowhere/at/all"))
      << dangling.err;
  EXPECT_FALSE(fs::exists(root + "/nowhere"));
}

TEST(HostileOutputSafety, FileOutputsRefuseLinksEvenToTheirOwnReports) {
  const std::string root = MakeTempDir("out-file-link");
  CopyTiny(root);
  ASSERT_EQ(RunTrainscopeIn(root, {"analyze", "job", "--json", "mine.json", "--perfetto", "t.json"})
                .exit_code,
            0);
  fs::create_symlink("mine.json", root + "/link.json");
  fs::create_symlink("t.json", root + "/link-trace.json");
  fs::create_symlink("missing-dir/x.db", root + "/link.db");
  const TreeSnapshot before = SnapshotTree(root);
  for (const auto& [option, path] : std::vector<std::pair<std::string, std::string>>{
           {"--json", "link.json"}, {"--perfetto", "link-trace.json"}, {"--sqlite", "link.db"}}) {
    SCOPED_TRACE(option);
    CommandResult r = RunTrainscopeIn(root, {"analyze", "job", option, path});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(Contains(r.err, option + " " + path + ": is a symlink to")) << r.err;
    EXPECT_TRUE(Contains(r.err, "hint: remove the link")) << r.err;
  }
  EXPECT_EQ(DiffTrees(before, SnapshotTree(root)), "");
}

TEST(HostileOutputSafety, StaleTemporariesOfDeadRunsGoOthersStay) {
  const std::string root = MakeTempDir("out-stale");
  CopyTiny(root);
  const int dead = DeadPid();
  const std::string stale = fmt::format(".r.json.trainscope-tmp-{}-0", dead);
  const std::string stale_db = fmt::format(".o.db.trainscope-tmp-{}-3", dead);
  const std::string live = fmt::format(".r.json.trainscope-tmp-{}-0", ::getpid());
  const std::string not_ours = fmt::format(".r.json.trainscope-tmp-{}-x", dead);
  const std::string stale_link = fmt::format(".l.trainscope-tmp-{}-0", dead);
  const std::string stale_job = fmt::format(".demo.trainscope-tmp-{}-1", dead);
  for (const std::string& name : {stale, stale_db, live, not_ours})
    ASSERT_TRUE(WriteBytes(root + "/" + name, "partial"));
  ASSERT_TRUE(WriteBytes(root + "/keep.txt", "mine"));
  fs::create_symlink("keep.txt", root + "/" + stale_link);
  ASSERT_TRUE(WriteBytes(root + "/" + stale_job + "/rank_0/kernel_details.csv", "Step Id\n"));
  // Links inside a killed synth's directory are removed, never followed.
  ASSERT_TRUE(WriteBytes(root + "/outside/precious.csv", "keep"));
  fs::create_symlink(fs::absolute(root + "/outside"), root + "/" + stale_job + "/rank_1");
  fs::create_symlink(fs::absolute(root + "/outside/precious.csv"),
                     root + "/" + stale_job + "/rank_0/trace_view.json");
  // Not exactly the writer's pattern: no NAME before the marker.
  const std::string no_name = fmt::format("..trainscope-tmp-{}-0", dead);
  ASSERT_TRUE(WriteBytes(root + "/" + no_name, "someone's"));
  // A dead PID's temporary of another user (only root can make one).
  const std::string foreign = fmt::format(".f.json.trainscope-tmp-{}-0", dead);
  ASSERT_TRUE(WriteBytes(root + "/" + foreign, "theirs"));
  const bool can_chown =
      ::geteuid() == 0 && ::chown((root + "/" + foreign).c_str(), 65534, 65534) == 0;
  CommandResult r = RunTrainscopeIn(root, {"analyze", "job", "--json", "r.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(root + "/" + stale));
  EXPECT_FALSE(fs::exists(root + "/" + stale_db));
  EXPECT_FALSE(fs::exists(root + "/" + stale_job)) << "a killed synth's job in the making";
  // A live process's temporary, a name not exactly ours, and a link stay.
  EXPECT_TRUE(fs::exists(root + "/" + live));
  EXPECT_TRUE(fs::exists(root + "/" + not_ours));
  EXPECT_TRUE(fs::is_symlink(root + "/" + stale_link));
  EXPECT_EQ(ReadFileBytes(root + "/keep.txt"), "mine");
  EXPECT_EQ(ReadFileBytes(root + "/outside/precious.csv"), "keep");
  EXPECT_TRUE(fs::exists(root + "/" + no_name));
  if (can_chown) {
    EXPECT_TRUE(fs::exists(root + "/" + foreign)) << "another user's";
  }
}

TEST(HostileOutputSafety, AKilledSynthLeavesNoPartialJobAndBlocksNoRerun) {
  const std::string root = MakeTempDir("out-synth-kill");
  // Killed at some point of a large job: whatever the timing, DIR is either
  // absent or a whole job with its manifest, never a truncated one.
  CommandResult killed =
      RunShell(root,
               "\"$TRAINSCOPE\" synth -o big --ranks 2 --scale 20 >/dev/null 2>&1 & pid=$!; "
               "sleep 0.4; kill -9 $pid; wait $pid; true");
  ASSERT_EQ(killed.exit_code, 0) << killed.err;
  if (fs::exists(root + "/big")) {
    EXPECT_TRUE(fs::exists(root + "/big/trainscope-manifest.txt"));
    EXPECT_TRUE(fs::exists(root + "/big/ground_truth.json"));
  }
  // The rerun (synth, then demo into the same place) is not refused, and
  // the killed run's hidden directory is gone.
  fs::remove_all(root + "/big");
  CommandResult rerun = RunTrainscopeIn(root, {"synth", "-o", "big", "--ranks", "1"});
  EXPECT_EQ(rerun.exit_code, 0) << rerun.err;
  CommandResult demo = RunTrainscopeIn(root, {"demo", "-o", "big", "--ranks", "1"});
  EXPECT_EQ(demo.exit_code, 0) << demo.err;
  for (const auto& entry : fs::directory_iterator(root)) {
    EXPECT_FALSE(Contains(entry.path().filename().string(), "trainscope-tmp"))
        << entry.path() << " left behind";
  }
}

TEST(HostileOutputSafety, AFifoNobodyReadsIsRefusedNotWaitedOn) {
  const std::string root = MakeTempDir("out-fifo");
  CopyTiny(root);
  ASSERT_EQ(::mkfifo((root + "/pipe").c_str(), 0600), 0);
  for (const std::string option : {"--json", "--html", "--perfetto", "--sqlite"}) {
    SCOPED_TRACE(option);
    // `timeout` only as a safety net: a blocking open() would hang the test.
    CommandResult r = RunShell(root, "timeout 60 \"$TRAINSCOPE\" analyze job " + option + " pipe");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(Contains(r.err, "pipe: is a FIFO that nobody reads")) << r.err;
  }
  // With a reader the FIFO is written in place.
  CommandResult read = RunShell(
      root,
      "cat pipe > got.json & sleep 0.3; \"$TRAINSCOPE\" analyze job --json pipe >/dev/null; wait");
  EXPECT_EQ(read.exit_code, 0) << read.err;
  EXPECT_TRUE(ReadFileBytes(root + "/got.json").starts_with("{")) << read.err;
}

TEST(HostileOutputSafety, EmptyPathsAndAbsurdNumbersAreUsageErrors) {
  const std::string root = MakeTempDir("out-values");
  CopyTiny(root);
  const TreeSnapshot before = SnapshotTree(root);
  const std::vector<std::vector<std::string>> cases = {
      {"analyze", "job", "--json", ""},
      {"analyze", "job", "--html", ""},
      {"analyze", "job", "--csv", ""},
      {"analyze", "job", "--sqlite", ""},
      {"analyze", "job", "--perfetto", ""},
      {"analyze", "job", "--families", ""},
      {"synth", "-o", ""},
      {"demo", "-o", ""},
      {"compare", "job", "job", "--json", ""},
      {"analyze", "job", "--top", "0"},
      {"analyze", "job", "--top", "-1"},
      {"analyze", "job", "--top", "99999999999999999999"},
      {"accuracy", "a", "b", "--max-abs", "-1"},
      {"accuracy", "a", "b", "--min-cosine", "nan"},
      {"accuracy", "a", "b", "--min-cosine", "2"},
      {"accuracy", "a", "b", "--loss-tolerance", "inf"},
      {"health", "log", "--peak-tflops", "-1"},
      {"health", "log", "--peak-tflops", "99999999999999999999"},
      {"synth", "-o", "x", "--accuracy-bench", "-1"},
      {"synth", "-o", "x", "--scale", "nan"},
  };
  for (const std::vector<std::string>& args : cases) {
    std::string shown;
    for (const std::string& a : args) shown += "[" + a + "]";
    SCOPED_TRACE(shown);
    CommandResult r = RunTrainscopeIn(root, args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_FALSE(Contains(r.err, "is required")) << r.err;
    EXPECT_LT(r.err.size(), 400u) << "no 300-digit numbers: " << r.err;
  }
  EXPECT_EQ(DiffTrees(before, SnapshotTree(root)), "");
  // An unknown flag is named as such, not hidden behind a missing argument.
  CommandResult unknown = RunTrainscopeIn(root, {"analyze", "--bogus"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_TRUE(Contains(unknown.err, "--bogus")) << unknown.err;
  EXPECT_FALSE(Contains(unknown.err, "paths is required")) << unknown.err;
}

TEST(HostileOutputSafety, ABadLineIsQuotedCapped) {
  const std::string root = MakeTempDir("out-capped");
  CopyTiny(root);
  // A rule line of 1 MB without columns.
  std::string line(1 << 20, 'x');
  line.push_back('\n');
  ASSERT_TRUE(WriteBytes(root + "/rules.tsv", line));
  CommandResult r = RunTrainscopeIn(root, {"analyze", "job", "--families", "rules.tsv"});
  EXPECT_EQ(r.exit_code, 2) << r.err.substr(0, 400);
  EXPECT_LT(r.err.size(), 1000u);
  EXPECT_TRUE(Contains(r.err, "... (1048576 bytes)")) << r.err;
}

TEST(HostileOutputSafety, CsvCellsThatLookLikeFormulasAreNeutralised) {
  const std::string root = MakeTempDir("out-csv-formula");
  const std::string job = CopyTiny(root);
  for (int rank : {0, 1}) {
    std::string csv = ReadFileBytes(KernelDetails(job, rank));
    for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
             {",Cast,", ",=1+2,"}, {",Pows,", ",@SUM(A1),"}}) {
      for (size_t at = csv.find(from); at != std::string::npos; at = csv.find(from, at + 1))
        csv.replace(at, from.size(), to);
    }
    ASSERT_TRUE(WriteBytes(KernelDetails(job, rank), csv));
  }
  CommandResult r = RunTrainscopeIn(root, {"analyze", "job", "--csv", "out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string operators = ReadFileBytes(root + "/out/operators.csv");
  EXPECT_TRUE(Contains(operators, ",'=1+2,")) << operators;
  EXPECT_TRUE(Contains(operators, ",'@SUM(A1),")) << operators;
  EXPECT_FALSE(Contains(operators, ",=1+2,"));
  EXPECT_FALSE(Contains(operators, ",@SUM(A1),"));
}

TEST(HostileOutputSafety, CompareSaysWhatLimitsItBeforeTheVerdict) {
  const std::string root = MakeTempDir("out-compare");
  CopyTiny(root, "base");
  const std::string damaged = CopyTiny(root, "damaged");
  // The same run twice, by two spellings: refused.
  CommandResult same = RunTrainscopeIn(root, {"compare", "base", "./base/"});
  EXPECT_EQ(same.exit_code, 2) << same.err;
  EXPECT_TRUE(Contains(same.err, "are the same directory")) << same.err;
  // NEW's kernel_details.csv: its last two thirds replaced by NUL rows.
  std::string csv = ReadFileBytes(KernelDetails(damaged, 0));
  size_t cut = 0;
  for (int line = 0; line < 18; ++line) cut = csv.find('\n', cut) + 1;
  std::string broken = csv.substr(0, cut);
  for (int line = 0; line < 30; ++line) {
    broken.append(40, '\0');
    broken.push_back('\n');
  }
  ASSERT_TRUE(WriteBytes(KernelDetails(damaged, 0), broken));
  CommandResult r = RunTrainscopeIn(root, {"compare", "base", "damaged", "--no-color"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t cautions = r.out.find("cautions:");
  const size_t verdict = r.out.find("verdict: ");
  ASSERT_NE(cautions, std::string::npos) << r.out;
  ASSERT_NE(verdict, std::string::npos) << r.out;
  EXPECT_LT(cautions, verdict);
  EXPECT_TRUE(Contains(r.out, "rows skipped in")) << r.out;
  EXPECT_TRUE(Contains(r.out, "verdict: cannot conclude: NEW's input is damaged")) << r.out;
  EXPECT_FALSE(Contains(r.out.substr(verdict, r.out.find('\n', verdict) - verdict), "faster"));
  // No rank in common: ranks 0 and 1 against the same profiles as ranks 2
  // and 3 (directory names and profiler_info renumbered).
  for (int rank : {0, 1}) {
    const std::string from = fmt::format("{}/base/rank_{}_ascend_pt", root, rank);
    const std::string to = fmt::format("{}/r23/rank_{}_ascend_pt", root, rank + 2);
    fs::create_directories(root + "/r23");
    fs::copy(from, to, fs::copy_options::recursive);
    fs::rename(fmt::format("{}/profiler_info_{}.json", to, rank),
               fmt::format("{}/profiler_info_{}.json", to, rank + 2));
  }
  CommandResult apart = RunTrainscopeIn(root, {"compare", "base", "r23", "--json", "-"});
  ASSERT_EQ(apart.exit_code, 0) << apart.err;
  EXPECT_TRUE(Contains(apart.out, "no rank in common (BASE ranks 0 1, NEW ranks 2 3)"))
      << apart.out;
  EXPECT_TRUE(Contains(apart.out, "\"verdict\": \"cannot conclude: no rank in common"))
      << apart.out;
}

// Damaged input can carry 1e308: printed in scientific notation, never as
// a 309-digit number; ordinary values keep their fixed notation.
TEST(HostileOutputSafety, HugeValuesPrintShort) {
  EXPECT_EQ(report::FormatDurationUs(1e308 * 1000.0), "n/a");  // inf: unknown
  EXPECT_EQ(report::FormatDurationUs(1e305), "1e+299 s");
  EXPECT_EQ(report::FormatDurationUs(2.5e6), "2.50 s");
  EXPECT_EQ(report::FormatPercent(1e306), "1e+308%");
  EXPECT_EQ(report::FormatPercent(0.624), "62.4%");
  EXPECT_EQ(report::FixedOrNa(1e308), "1e+308");
  EXPECT_EQ(report::FixedOrNa(12.34), "12.3");
}

TEST(HostileOutputSafety, CappedQuotesCutAtACharacterBoundary) {
  EXPECT_EQ(CappedQuote("short"), "short");
  EXPECT_EQ(CappedQuote(std::string(200, 'a'), 10), "aaaaaaaaaa... (200 bytes)");
  // "é" is two bytes: a cut inside it backs up to before it.
  EXPECT_EQ(CappedQuote("abcdefghi\xc3\xa9xyz", 10), "abcdefghi... (14 bytes)");
}

}  // namespace
}  // namespace trainscope::testing
