// The terminal summary fits the terminal: at COLUMNS=80 and 120 every line
// of the demo's summary is within the width (goldens pin the rest), a pipe
// keeps lines whole but compact, and --top 5 fits one screen.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "golden/cli_test_util.h"
#include "report/text_report.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

// The lines of |text| wider than |width| columns, each with its number.
std::string LinesOver(const std::string& text, size_t width) {
  std::istringstream in(text);
  std::string over;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (report::VisibleColumns(line) > width) over += std::to_string(number) + ": " + line + "\n";
  }
  return over;
}

size_t LineCount(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

size_t WidestLine(const std::string& text) {
  std::istringstream in(text);
  size_t widest = 0;
  for (std::string line; std::getline(in, line);)
    widest = std::max(widest, report::VisibleColumns(line));
  return widest;
}

// The demo job (`trainscope demo`), written once into a folder whose name
// is longer than any terminal here, so the summary's rank paths show only
// their end, the same wherever the temporary folder is.
const std::string& DemoJob() {
  static const std::string job = [] {
    const std::string dir = MakeTempDir("terminal-width") + "/demo_job_" + std::string(120, 'x');
    const CommandResult r = RunTrainscope({"demo", "--out", dir, "--threads", "1"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return dir;
  }();
  return job;
}

// `analyze` of the demo job, with |env| and |extra| arguments.
CommandResult RunDemo(const std::vector<std::string>& env,
                      const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"analyze", DemoJob(), "--threads", "1"};
  args.insert(args.end(), extra.begin(), extra.end());
  CommandResult r = RunTrainscope(args, env);
  for (size_t pos = r.out.find(DemoJob()); pos != std::string::npos;
       pos = r.out.find(DemoJob(), pos))
    r.out.replace(pos, DemoJob().size(), "<DEMO>");
  return r;
}

TEST(TerminalWidth, DemoSummaryFitsEightyColumns) {
  const CommandResult r = RunDemo({"COLUMNS=80"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(LinesOver(r.out, 80), "");
  EXPECT_EQ(CompareGolden("demo_columns_80.txt", r.out), "");
}

TEST(TerminalWidth, DemoSummaryFitsOneHundredTwentyColumns) {
  const CommandResult r = RunDemo({"COLUMNS=120"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(LinesOver(r.out, 120), "");
  EXPECT_EQ(CompareGolden("demo_columns_120.txt", r.out), "");
}

TEST(TerminalWidth, TopFiveFitsOneScreen) {
  const CommandResult r = RunDemo({"COLUMNS=80"}, {"--top", "5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(LinesOver(r.out, 80), "");
  EXPECT_LE(LineCount(r.out), 50u) << r.out;
  // The findings first, each its title and remedy; then the rank's time.
  EXPECT_EQ(r.out.find("Findings, ranked by estimated gain"), 0u) << r.out;
  EXPECT_NE(r.out.find("  5. "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("  6. "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("evidence:"), std::string::npos) << r.out;
  EXPECT_LT(r.out.find("  5. "), r.out.find("Rank 0")) << r.out;
  EXPECT_NE(r.out.find("  time "), std::string::npos) << r.out;
}

TEST(TerminalWidth, APipeKeepsLinesWholeButCompact) {
  const CommandResult r = RunDemo({});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Motif chains are summarised ("A → B → … (N kernels)"), never every
  // kernel; a finding stays on one line for grep.
  std::istringstream in(r.out);
  size_t chains = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.find(" → ") == std::string::npos) continue;
    ++chains;
    EXPECT_LE(report::VisibleColumns(line), 200u) << line;
  }
  EXPECT_GE(chains, 5u) << r.out;
  EXPECT_NE(r.out.find(" kernels)"), std::string::npos) << r.out;
  EXPECT_GT(WidestLine(r.out), 200u) << "a finding's evidence should stay one line";
}

}  // namespace
}  // namespace trainscope::testing
