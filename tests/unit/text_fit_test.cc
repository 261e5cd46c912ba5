// The terminal summary's fit: paragraphs wrapped to the
// terminal's width, --top N findings, --quiet.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "analysis/common/family_rules.h"
#include "analysis/job/rank_analysis.h"
#include "report/text_report.h"
#include "synth/synth.h"
#include "synth_job.h"

namespace trainscope::report {
namespace {

TEST(WrapParagraph, BreaksAtSpacesWithAHangingIndent) {
  const std::string text = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu";
  // 30 columns with an indent of 4: 26 columns of text per line.
  const std::string wrapped = WrapParagraph(text, 30, 4);
  EXPECT_EQ(wrapped,
            "alpha beta gamma delta\n"
            "    epsilon zeta eta theta\n"
            "    iota kappa lambda mu");
  // Width 0 (a pipe, --wide) or too narrow to be useful: unchanged.
  EXPECT_EQ(WrapParagraph(text, 0, 4), text);
  EXPECT_EQ(WrapParagraph(text, 20, 4), text);
  // A word longer than a line is broken, at a '+' where there is one;
  // multi-byte characters count as one column.
  EXPECT_EQ(WrapParagraph("ab supercalifragilisticexpialidocious cd", 26, 2),
            "ab\n  supercalifragilisticexpi\n  alidocious cd");
  EXPECT_EQ(WrapParagraph("x aten::slice+aten::constant_pad_nd+aten::permute", 30, 2),
            "x aten::slice+\n  aten::constant_pad_nd+\n  aten::permute");
  // A number stays with its unit.
  EXPECT_EQ(WrapParagraph("spans of about 339.7 ms each", 24, 2),
            "spans of about\n  339.7 ms each");
  EXPECT_EQ(WrapParagraph("µµµµµ µµµµµ µµµµµ µµµµµ µµµµµ", 25, 2),
            "µµµµµ µµµµµ µµµµµ µµµµµ\n  µµµµµ");
}

TEST(TextFit, TopQuietAndWidth) {
  synth::SynthOptions options;
  options.ranks = 2;
  options.layers = 2;
  auto loaded = testing::LoadSynthJob(options, "text-fit");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  auto job = analysis::AnalyzeJob(loaded->profiles, analysis::FamilyRules::Builtin(),
                                  analysis::AnalysisOptions{}, 2);
  ASSERT_TRUE(job.ok()) << job.status().message();
  ASSERT_GE(job->findings.size(), 3u);

  TextReportOptions whole;
  const std::string full = RenderText(*job, whole);
  TextReportOptions top;
  top.top = 2;
  top.quiet = true;
  const std::string quiet = RenderText(*job, top);
  // The first two findings, a line saying how many more, and nothing after.
  EXPECT_NE(quiet.find(" 1. "), std::string::npos);
  EXPECT_NE(quiet.find(" 2. "), std::string::npos);
  EXPECT_EQ(quiet.find(" 3. "), std::string::npos);
  EXPECT_NE(quiet.find(std::to_string(job->findings.size() - 2) + " more finding"),
            std::string::npos)
      << quiet;
  EXPECT_EQ(quiet.find("Rank 0"), std::string::npos);
  EXPECT_NE(full.find("Rank 0"), std::string::npos);
  EXPECT_LT(quiet.size(), full.size());

  // At 80 columns no evidence/cause/remedy line is longer than 80 columns
  // (titles stay whole); without a width the longest is far longer.
  TextReportOptions narrow;
  narrow.width = 80;
  narrow.quiet = true;
  std::istringstream lines(RenderText(*job, narrow));
  size_t longest_paragraph_line = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("          ", 0) == 0)
      longest_paragraph_line = std::max(longest_paragraph_line, line.size());
  }
  EXPECT_GT(longest_paragraph_line, 40u);
  EXPECT_LE(longest_paragraph_line, 80u);

  // The whole summary, not only the findings: every line fits 80 and 100
  // columns; motif chains are summarised with their length; without a
  // width some line is longer (the chains kept whole).
  for (int width : {80, 100}) {
    TextReportOptions fit;
    fit.width = width;
    const std::string text = RenderText(*job, fit);
    std::istringstream all(text);
    for (std::string line; std::getline(all, line);) {
      EXPECT_LE(VisibleColumns(line), static_cast<size_t>(width)) << line;
    }
    EXPECT_NE(text.find("Motifs of rank"), std::string::npos);
    EXPECT_NE(text.find(" kernels)"), std::string::npos);
  }
  std::istringstream unfitted(full);
  size_t longest = 0;
  for (std::string line; std::getline(unfitted, line);)
    longest = std::max(longest, VisibleColumns(line));
  EXPECT_GT(longest, 120u);
}

TEST(FitToWidth, WrapsUnderTheValueAndCountsColumnsNotBytes) {
  EXPECT_EQ(VisibleColumns("\033[1mbold\033[0m µs"), 7u);
  EXPECT_EQ(CutToColumns("µµµµ", 2), "µµ");
  EXPECT_EQ(CutToColumns("\033[1mabcdef", 3), "\033[1mabc");
  // Under the value after a label's spaces.
  EXPECT_EQ(FitToWidth("  time    one two three four five six seven\nshort\n", 40),
            "  time    one two three four five six\n          seven\nshort\n");
  // A value column too far right for the width: two deeper than the line.
  EXPECT_EQ(FitToWidth("  time    one two three four five six seven", 32),
            "  time    one two three four\n    five six seven");
  // Under the value after a label's ": ".
  EXPECT_EQ(FitToWidth("  step chosen: aaa bbb ccc ddd eee fff ggg hhh", 40),
            "  step chosen: aaa bbb ccc ddd eee fff\n               ggg hhh");
  // No width: unchanged; a word longer than the line is broken.
  const std::string long_line = "  x  " + std::string(50, 'y') + " z";
  EXPECT_EQ(FitToWidth(long_line, 0), long_line);
  EXPECT_EQ(FitToWidth(long_line, 40),
            "  x  " + std::string(35, 'y') + "\n     " + std::string(15, 'y') + " z");
  // A number and its unit are one word.
  EXPECT_EQ(FitToWidth("  time    aaaa bbbb cccc dddd 339.7 ms", 34),
            "  time    aaaa bbbb cccc dddd\n          339.7 ms");
}

}  // namespace
}  // namespace trainscope::report
