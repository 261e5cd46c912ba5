// Command-line habits: bare `trainscope` prints the help, mistyped flags and
// commands get a "did you mean", `analyse` is `analyze`, other profilers'
// files are named with how to capture one trainscope reads.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/suggest.h"
#include "golden/cli_test_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

bool HabitsContain(const std::string& text, const std::string& piece) {
  return text.find(piece) != std::string::npos;
}

TEST(CliHabits, EditDistanceCountsASwapAsOneTypo) {
  EXPECT_EQ(cli::EditDistance("threads", "threads"), 0u);
  EXPECT_EQ(cli::EditDistance("--treads", "--threads"), 1u);
  EXPECT_EQ(cli::EditDistance("anaylze", "analyze"), 1u);  // swapped neighbours
  EXPECT_EQ(cli::EditDistance("", "abc"), 3u);
  EXPECT_EQ(cli::EditDistance("kitten", "sitting"), 3u);
}

TEST(CliHabits, NearestWordOnlyWhenCloseEnough) {
  const std::vector<std::string> words{"--threads", "--json", "--html", "--top"};
  EXPECT_EQ(cli::NearestWord("--treads", words), "--threads");
  EXPECT_EQ(cli::NearestWord("--jsno", words), "--json");
  EXPECT_EQ(cli::NearestWord("--completely-different", words), std::nullopt);
}

TEST(CliHabits, BareCommandPrintsTheHelp) {
  CommandResult r = RunTrainscope({});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(HabitsContain(r.out, "analyze")) << r.out;
  EXPECT_TRUE(HabitsContain(r.out, "compare")) << r.out;
  EXPECT_FALSE(HabitsContain(r.err, "A subcommand is required")) << r.err;
}

TEST(CliHabits, MistypedFlagGetsASuggestion) {
  CommandResult r = RunTrainscope({"analyze", DataDir() + "/ascend_tiny", "--treads", "2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(HabitsContain(r.err, "--treads")) << r.err;
  EXPECT_TRUE(HabitsContain(r.err, "did you mean '--threads'?")) << r.err;
}

TEST(CliHabits, MistypedCommandGetsASuggestion) {
  CommandResult r = RunTrainscope({"anaylze", DataDir() + "/ascend_tiny"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(HabitsContain(r.err, "did you mean 'analyze'?")) << r.err;
  CommandResult far = RunTrainscope({"frobnicate"});
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_FALSE(HabitsContain(far.err, "did you mean")) << far.err;
}

TEST(CliHabits, AnalyseIsAnalyze) {
  CommandResult british = RunTrainscope({"analyse", DataDir() + "/ascend_tiny", "--json", "-"});
  CommandResult american = RunTrainscope({"analyze", DataDir() + "/ascend_tiny", "--json", "-"});
  EXPECT_EQ(british.exit_code, 0) << british.err;
  EXPECT_EQ(british.out, american.out);
}

TEST(CliHabits, OtherProfilersFilesAreNamed) {
  const std::string dir = ::testing::TempDir() + "/cli-habits-foreign";
  std::filesystem::create_directories(dir);
  for (const std::string name : {"run.nsys-rep", "host.xplane.pb"}) {
    const std::string path = dir + "/" + name;
    std::ofstream(path) << "\x01\x02 not json";
    CommandResult r = RunTrainscope({"analyze", path});
    EXPECT_EQ(r.exit_code, 2) << name;
    EXPECT_TRUE(HabitsContain(r.err, "not supported; capture the run with torch.profiler"))
        << r.err;
    EXPECT_FALSE(HabitsContain(r.err, "not a JSON object")) << r.err;
  }
}

TEST(CliHabits, DemoTakesThreads) {
  const std::string out = ::testing::TempDir() + "/cli-habits-demo";
  CommandResult r = RunTrainscope({"demo", "--out", out, "--ranks", "2", "--threads", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(HabitsContain(r.out, "Demo job")) << r.out;
}

// The README's sample of the demo's output is the demo's output: every line
// of it is a whole line of what `trainscope demo` prints.
TEST(CliHabits, ReadmeSampleIsWhatTheDemoPrints) {
  std::ifstream readme(SourceDir() + "/README.md");
  ASSERT_TRUE(readme) << SourceDir();
  std::vector<std::string> sample;
  bool inside = false;
  for (std::string line; std::getline(readme, line);) {
    if (line.starts_with("<!-- demo-sample")) {
      inside = true;
    } else if (line.starts_with("<!-- /demo-sample")) {
      inside = false;
    } else if (inside && !line.starts_with("```")) {
      sample.push_back(line);
    }
  }
  ASSERT_GE(sample.size(), 3u) << "README.md has no demo-sample block";
  const std::string out = ::testing::TempDir() + "/cli-habits-readme-demo";
  CommandResult r = RunTrainscope({"demo", "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string printed = "\n" + r.out;
  for (const std::string& line : sample) {
    EXPECT_TRUE(HabitsContain(printed, "\n" + line + "\n"))
        << "README.md's demo sample line is not in the demo's output:\n"
        << line;
  }
}

}  // namespace
}  // namespace trainscope::testing
