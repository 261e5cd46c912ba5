// `analyze --thresholds FILE` and `trainscope explain`: the findings
// catalogue from the command line.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "golden/cli_test_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

bool HasFinding(const std::string& json, const std::string& id) {
  return json.find("\"id\": \"" + id + "\"") != std::string::npos;
}

TEST(ThresholdsCli, OverrideMovesTheVerdict) {
  const CommandResult builtin = RunTrainscope({"analyze", TinyJob(), "--json", "-"});
  ASSERT_EQ(builtin.exit_code, 0) << builtin.err;
  ASSERT_TRUE(HasFinding(builtin.out, "exposed-communication"));
  ASSERT_TRUE(HasFinding(builtin.out, "host-bound"));

  // The tiny job's exposed communication is 23% and its device free time
  // 11% of the step: bands above those make both normal.
  const std::string file = MakeTempDir("thresholds") + "/lenient.tsv";
  std::ofstream(file) << "# lenient\nexposed_comm_normal  0.30\nexposed_comm_examine  0.40\n"
                         "device_free_normal\t0.15\tshare\tstep\tmy cluster's baseline\n";
  const CommandResult lenient =
      RunTrainscope({"analyze", TinyJob(), "--thresholds", file, "--json", "-"});
  ASSERT_EQ(lenient.exit_code, 0) << lenient.err;
  EXPECT_FALSE(HasFinding(lenient.out, "exposed-communication"));
  EXPECT_FALSE(HasFinding(lenient.out, "host-bound"));

  // A stricter band changes the gain and the text with it.
  std::ofstream(file) << "exposed_comm_normal  0.05\n";
  const CommandResult strict =
      RunTrainscope({"analyze", TinyJob(), "--thresholds", file, "--json", "-"});
  ASSERT_EQ(strict.exit_code, 0) << strict.err;
  EXPECT_NE(strict.out.find("Exposed communication above 20% of the step: must be examined"),
            std::string::npos);
  EXPECT_NE(strict.out.find("above the 5% normal band (methodology"), std::string::npos);
}

TEST(ThresholdsCli, BadFileExitsTwoNamingFileAndLine) {
  const std::string file = MakeTempDir("thresholds_bad") + "/bad.tsv";
  const struct {
    const char* text;
    const char* message;
  } cases[] = {
      {"# x\n\nresidual_skew_us  70200\n", "bad.tsv:3: unknown threshold key 'residual_skew_us'"},
      {"skew_wait_pct  four\n", "bad.tsv:1: 'four' is not a number"},
      {"exposed_comm_normal  10\n", "bad.tsv:1: value 10 out of range for unit 'share'"},
      {"skew_wait_pct  4  share\n", "bad.tsv:1: 'skew_wait_pct' is in unit 'pct', not 'share'"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    std::ofstream(file) << c.text;
    const CommandResult r = RunTrainscope({"analyze", TinyJob(), "--thresholds", file});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
  std::ofstream(file) << "nope  1\n";
  const CommandResult r = RunTrainscope({"analyze", TinyJob(), "--thresholds", file});
  EXPECT_NE(r.err.find("hint: `trainscope explain`"), std::string::npos) << r.err;
  const CommandResult missing =
      RunTrainscope({"analyze", TinyJob(), "--thresholds", file + ".absent"});
  EXPECT_EQ(missing.exit_code, 2);
}

TEST(ExplainCli, PrintsTheEntryWithThresholdsAndOrigins) {
  const CommandResult r = RunTrainscope({"explain", "step-start-skew"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(CompareGolden("explain_step_start_skew.txt", r.out), "");

  const CommandResult comm = RunTrainscope({"explain", "exposed-communication"});
  ASSERT_EQ(comm.exit_code, 0) << comm.err;
  for (const char* line : {
           "  title:\n    Exposed communication above the 10% normal band\n",
           "  title (examine):\n    Exposed communication above 20% of the step: must be "
           "examined\n",
           "    exposed_comm_normal = 0.1 (share of the step)\n      origin: methodology §3",
           "    exposed_comm_examine = 0.2 (share of the step)\n",
       }) {
    EXPECT_NE(comm.out.find(line), std::string::npos) << line << "\n" << comm.out;
  }
  // A fingerprint id: the library's texts in the shared template.
  const CommandResult fp = RunTrainscope({"explain", "unfused-rmsnorm"});
  ASSERT_EQ(fp.exit_code, 0) << fp.err;
  EXPECT_NE(fp.out.find("  title:\n    RMSNorm decomposed into elementwise kernels\n"),
            std::string::npos)
      << fp.out;
  EXPECT_NE(fp.out.find("fingerprint_min_instances = 2 (count)"), std::string::npos);

  // With a thresholds file: the values in force, and where they were set.
  const std::string file = MakeTempDir("explain_thresholds") + "/mine.tsv";
  std::ofstream(file) << "# ours\nskew_residual_pct  5\n";
  const CommandResult mine = RunTrainscope({"explain", "step-start-skew", "--thresholds", file});
  ASSERT_EQ(mine.exit_code, 0) << mine.err;
  EXPECT_NE(mine.out.find("a residual spread of about 5.0% of the step"), std::string::npos)
      << mine.out;
  EXPECT_NE(mine.out.find("skew_residual_pct = 5 (pct of the step)"), std::string::npos);
  EXPECT_NE(mine.out.find("(set in " + file + ":2)"), std::string::npos) << mine.out;
}

TEST(ExplainCli, ListsIdsAndRejectsUnknownOnes) {
  const CommandResult list = RunTrainscope({"explain"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  for (const char* id :
       {"exposed-communication", "host-bound", "dominant-operator", "memory-bound-operator",
        "compute-bound-operator", "straggler-rank", "step-start-skew", "pseudo-overlap",
        "slow-link", "fragmented-communication", "unfused-rmsnorm", "cast-chain"}) {
    EXPECT_NE(list.out.find(std::string("\n  ") + id + " "), std::string::npos) << id;
  }
  EXPECT_EQ(list.out.find("_merged"), std::string::npos);
  EXPECT_EQ(list.out.find("\n  fingerprint "), std::string::npos);

  const CommandResult unknown = RunTrainscope({"explain", "no-such-finding"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.out, "");
  EXPECT_NE(unknown.err.find("unknown finding id 'no-such-finding'"), std::string::npos);
  EXPECT_NE(unknown.err.find("\n  slow-link "), std::string::npos) << unknown.err;
}

}  // namespace
}  // namespace trainscope::testing
