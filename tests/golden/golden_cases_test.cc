// Runs every hand-written case under tests/golden/cases/<format>/<case>/
// (input, cmd, expected; see golden_case_util.h and HACKING.md) as its own
// test, and checks that the runner itself can fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "golden/golden_case_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

bool UpdateRequested() {
  const char* update = std::getenv("TRAINSCOPE_UPDATE_GOLDEN");
  return update && std::string(update) == "1";
}

// gtest names allow only letters, digits and '_'.
std::string TestName(const ::testing::TestParamInfo<GoldenCase>& info) {
  std::string name = info.param.Id();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

class GoldenCaseTest : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenCaseTest, Run) { EXPECT_EQ(CheckGoldenCase(GetParam(), UpdateRequested()), ""); }

INSTANTIATE_TEST_SUITE_P(GoldenCases, GoldenCaseTest,
                         ::testing::ValuesIn(FindGoldenCases(GoldenCasesRoot())), TestName);

// A runner that silently finds nothing would pass: require the cases that
// are checked in, per format.
TEST(GoldenCaseRunnerTest, FindsTheCheckedInCases) {
  std::map<std::string, int> per_format;
  for (const GoldenCase& golden_case : FindGoldenCases(GoldenCasesRoot())) {
    ++per_format[golden_case.format];
  }
  EXPECT_GE(per_format["ascend_text"], 5);
  EXPECT_GE(per_format["kineto"], 4);
  EXPECT_GE(per_format["errors"], 2);
}

TEST(GoldenCaseRunnerTest, DetectsAChangedLine) {
  const std::string expected = "exit: 0\n--- stdout ---\nkernels 25\n--- stderr ---\n";
  EXPECT_EQ(CompareCaseOutput("t", expected, expected), "");
  std::string changed = expected;
  changed.replace(changed.find("25"), 2, "26");
  const std::string message = CompareCaseOutput("t", expected, changed);
  EXPECT_NE(message.find("line 3"), std::string::npos) << message;
  EXPECT_NE(message.find("kernels 26"), std::string::npos) << message;
  EXPECT_NE(CompareCaseOutput("t", expected, expected + "extra\n"), "");
  EXPECT_NE(CompareCaseOutput("t", expected, "exit: 1" + expected.substr(7)), "");
}

TEST(GoldenCaseRunnerTest, IgnoresOnlyLeadingCommentLines) {
  const std::string body = "exit: 0\n--- stdout ---\n# not a comment here\n--- stderr ---\n";
  const std::string with_note = "# KNOWN BUG: example\n# second line\n" + body;
  EXPECT_EQ(CompareCaseOutput("t", with_note, body), "");
  EXPECT_EQ(LeadingComments(with_note), "# KNOWN BUG: example\n# second line\n");
  std::string without_inner = body;
  without_inner.erase(without_inner.find("# not"), 21);
  EXPECT_NE(CompareCaseOutput("t", with_note, without_inner), "");
}

TEST(GoldenCaseRunnerTest, ReplacesTheInputPlaceholder) {
  std::string error;
  auto args = ParseCaseCommand("analyze {input} --no-color\n", "/x/input", &error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(args, (std::vector<std::string>{"analyze", "/x/input", "--no-color"}));
  ParseCaseCommand("analyze {input}\n--json -\n", "/x/input", &error);
  EXPECT_NE(error, "");
  ParseCaseCommand("  \n", "/x/input", &error);
  EXPECT_NE(error, "");
}

// A case run with COLUMNS=N (a terminal of N columns) prints no stdout line
// wider than N (UTF-8 code points), in its checked-in expected output.
TEST(GoldenCaseRunnerTest, ColumnsCasesFitTheirWidth) {
  size_t checked = 0;
  for (const GoldenCase& golden_case : FindGoldenCases(GoldenCasesRoot())) {
    std::ifstream cmd_file(golden_case.dir + "/cmd");
    std::string cmd((std::istreambuf_iterator<char>(cmd_file)), std::istreambuf_iterator<char>());
    std::string error;
    std::vector<std::string> args = ParseCaseCommand(cmd, "input", &error);
    size_t width = 0;
    for (const std::string& setting : TakeCaseEnvironment(&args)) {
      if (setting.starts_with("COLUMNS=")) width = std::stoul(setting.substr(8));
    }
    if (width == 0) continue;
    ++checked;
    std::ifstream expected(golden_case.dir + "/expected");
    bool in_stdout = false;
    for (std::string line; std::getline(expected, line);) {
      if (line == "--- stdout ---") in_stdout = true;
      if (line == "--- stderr ---") break;
      if (!in_stdout) continue;
      const auto columns = static_cast<size_t>(std::count_if(line.begin(), line.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
      }));
      EXPECT_LE(columns, width) << golden_case.Id() << ": " << line;
    }
  }
  EXPECT_GE(checked, 2u) << "no golden case runs with COLUMNS set";
}

TEST(GoldenCaseRunnerTest, LeadingSettingsAreTheEnvironment) {
  std::string error;
  auto args = ParseCaseCommand("COLUMNS=80 analyze {input} --x=1\n", "/x/input", &error);
  EXPECT_EQ(TakeCaseEnvironment(&args), (std::vector<std::string>{"COLUMNS=80"}));
  EXPECT_EQ(args, (std::vector<std::string>{"analyze", "/x/input", "--x=1"}));
  args = ParseCaseCommand("analyze {input} COLUMNS=80\n", "/x/input", &error);
  EXPECT_TRUE(TakeCaseEnvironment(&args).empty());
  EXPECT_EQ(args.size(), 3u);
}

TEST(GoldenCaseRunnerTest, CaseWithMissingFilesFails) {
  namespace fs = std::filesystem;
  const std::string root = MakeTempDir("golden_cases");
  fs::create_directories(root + "/fmt/no_cmd/input");
  fs::create_directories(root + "/fmt/no_expected/input");
  std::ofstream(root + "/fmt/no_expected/cmd") << "analyze {input} --no-color\n";
  fs::create_directories(root + "/fmt/no_input");
  std::ofstream(root + "/fmt/no_input/cmd") << "analyze {input}\n";
  std::ofstream(root + "/fmt/no_input/expected") << "exit: 0\n";
  // The case folder's own name is in every message, so look for the words.
  const std::map<std::string, std::string> reason = {
      {"no_cmd", "no cmd file"}, {"no_expected", "no expected file"}, {"no_input", "no input"}};
  auto cases = FindGoldenCases(root);
  ASSERT_EQ(cases.size(), 3u);
  for (const GoldenCase& golden_case : cases) {
    const std::string message = CheckGoldenCase(golden_case, /*update=*/false);
    EXPECT_NE(message.find(reason.at(golden_case.name)), std::string::npos) << message;
  }
  // Updating writes a missing expected file, but cannot invent a cmd.
  EXPECT_NE(CheckGoldenCase(cases[0], /*update=*/true), "") << cases[0].name;
  fs::remove_all(root);
}

TEST(GoldenCaseRunnerTest, MismatchingExpectedFileFails) {
  namespace fs = std::filesystem;
  const std::string root = MakeTempDir("golden_cases");
  const std::string dir = root + "/fmt/wrong";
  fs::create_directories(dir + "/input");
  std::ofstream(dir + "/cmd") << "analyze {input} --no-color\n";
  std::ofstream(dir + "/expected") << "exit: 0\n--- stdout ---\n--- stderr ---\n";
  auto cases = FindGoldenCases(root);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_NE(CheckGoldenCase(cases[0], /*update=*/false).find("differs"), std::string::npos);
  fs::remove_all(root);
}

}  // namespace
}  // namespace trainscope::testing
