// Class 7: control bytes and ill-formed UTF-8 from profiles never reach the
// terminal raw, in the report (kernel names, ledger samples), in colour
// mode, and in error messages that quote a field.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>

#include "analysis/common/family_rules.h"
#include "analysis/job/rank_analysis.h"
#include "formats/load_profiles.h"
#include "hostile/csv_util.h"
#include "hostile/hostile_util.h"
#include "report/text_report.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

// No C0 control but '\n', no DEL, no C1, valid UTF-8; with |allowed_sgr|
// ESC only in the report's own bold/dim/yellow/reset sequences.
void ExpectTerminalSafe(const std::string& text, bool allowed_sgr = false) {
  ASSERT_TRUE(simdjson::validate_utf8(text.data(), text.size()));
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char u = static_cast<unsigned char>(text[i]);
    if (u == 0x1B && allowed_sgr) {
      const std::string_view rest = std::string_view(text).substr(i);
      const bool own = rest.starts_with("\x1b[0m") || rest.starts_with("\x1b[1m") ||
                       rest.starts_with("\x1b[2m") || rest.starts_with("\x1b[33m");
      EXPECT_TRUE(own) << "foreign escape at " << i << ": " << rest.substr(0, 12);
      continue;
    }
    EXPECT_TRUE(u >= 0x20 || u == '\n') << "raw control byte " << int(u) << " at " << i;
    EXPECT_NE(u, 0x7F) << i;
    if (u == 0xC2 && i + 1 < text.size()) {
      const unsigned char next = static_cast<unsigned char>(text[i + 1]);
      EXPECT_FALSE(next >= 0x80 && next <= 0x9F) << "raw C1 control at " << i;
    }
  }
  EXPECT_EQ(text.find("\xe2\x80\xae"), std::string::npos);  // no raw bidi override
}

TEST(HostileOutputTerminal, TextReportEscapesProfileBytes) {
  const std::string job = WriteAscendJob("terminal", EvilKernelDetails());
  const TreeSnapshot before = SnapshotTree(job);
  const CommandResult r = RunTrainscopeIn(job, {"analyze", job});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectTerminalSafe(r.out);
  ExpectTerminalSafe(r.err);
  EXPECT_NE(r.out.find("\\x1b[31mred\\x1b[0m"), std::string::npos) << r.out;
  // The ledger sample quoting the field, escaped.
  EXPECT_NE(r.out.find("1 rows skipped: unparsable start time"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\\x1b]0;pwned\\x07"), std::string::npos) << r.out;
  EXPECT_EQ(DiffTrees(before, SnapshotTree(job)), "");
}

TEST(HostileOutputTerminal, ColourModeKeepsOnlyItsOwnSequences) {
  const std::string job = WriteAscendJob("terminal_color", EvilKernelDetails());
  auto profiles = formats::LoadProfiles({job}, 1);
  ASSERT_TRUE(profiles.ok()) << profiles.status().message();
  auto rules = analysis::FamilyRules::Merge({}, analysis::FamilyRules::Builtin());
  auto analysed = analysis::AnalyzeJob(profiles->profiles, rules, analysis::AnalysisOptions(), 1);
  ASSERT_TRUE(analysed.ok());
  report::TextReportOptions options;
  options.color = true;
  const std::string text = report::RenderText(*analysed, options);
  ExpectTerminalSafe(text, /*allowed_sgr=*/true);
  EXPECT_NE(text.find("\x1b[1m"), std::string::npos);  // colour is still there
  EXPECT_NE(text.find("\\x1b[31mred"), std::string::npos);
}

TEST(HostileOutputTerminal, ErrorMessageQuotingTheHeaderIsEscaped) {
  // No Name column; the header quoted in the error holds ESC and BEL.
  const std::string data =
      "Step Id,\x1b[2JKernel\x07,Start Time(us),Duration(us)\n1,k,1764246877000000,12.5\n";
  const std::string job = WriteAscendJob("terminal_error", data);
  const TreeSnapshot before = SnapshotTree(job);
  const CommandResult r = RunTrainscopeIn(job, {"analyze", job});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  ExpectTerminalSafe(r.out);
  ExpectTerminalSafe(r.err);
  const std::string& all = r.err + r.out;
  EXPECT_NE(all.find("required column 'Name' not found"), std::string::npos) << all;
  EXPECT_NE(all.find("\\x1b[2JKernel\\x07"), std::string::npos) << all;
  EXPECT_EQ(DiffTrees(before, SnapshotTree(job)), "");
}

// Every error message goes through the same escaping, whatever quotes the
// bytes: here the path a user gave (a file name may hold any byte but '/').
TEST(HostileOutputTerminal, EveryErrorMessageIsEscaped) {
  const std::string dir = MakeTempDir("terminal_path");
  const TreeSnapshot before = SnapshotTree(dir);
  const CommandResult r = RunTrainscopeIn(dir, {"analyze", "gone\x1b]0;title\x07.json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  ExpectTerminalSafe(r.err);
  EXPECT_NE(r.err.find("gone\\x1b]0;title\\x07.json"), std::string::npos) << r.err;
  EXPECT_EQ(DiffTrees(before, SnapshotTree(dir)), "");
}

}  // namespace
}  // namespace trainscope::testing
