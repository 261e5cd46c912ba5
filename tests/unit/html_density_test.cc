// The report's density chart draws every rank up to the rows its legend
// names (kDensityLegendRows); past that the stragglers, then ranks evenly
// spaced, and it says how many it drew (a thousand overlaid curves were 6 MB
// of unreadable SVG at 1,024 ranks).
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "report/charts.h"
#include "report/html_report.h"
#include "synth/synth.h"
#include "synth_job.h"

namespace trainscope::report {
namespace {

// The ranks named in the density chart's legend.
std::set<int> LegendRanks(const std::string& page) {
  const size_t from = page.find("<section id=\"distribution\"");
  const size_t to = page.find("</svg>", from);
  const std::string chart = page.substr(from, to - from);
  std::set<int> ranks;
  const std::regex label(">rank (\\d+) step \\d+</text>");
  for (auto it = std::sregex_iterator(chart.begin(), chart.end(), label);
       it != std::sregex_iterator(); ++it) {
    ranks.insert(std::stoi((*it)[1]));
  }
  return ranks;
}

std::string PageOf(int ranks, int straggler) {
  synth::SynthOptions o;
  o.ranks = ranks;
  o.layers = 1;
  o.steps = 2;
  o.straggler_rank = straggler;
  auto job = testing::AnalyzeSynthJob(o, "html_density");
  EXPECT_TRUE(job.ok()) << job.status().message();
  return job.ok() ? RenderHtml(*job, HtmlReportOptions{}) : std::string();
}

TEST(HtmlDensity, EveryRankUpToTheLegendsRows) {
  const std::string page = PageOf(8, -1);
  EXPECT_EQ(LegendRanks(page).size(), 8u);
  EXPECT_EQ(page.find("ranks drawn"), std::string::npos);
}

TEST(HtmlDensity, ManyRanksDrawTheStragglerAndAnEvenSample) {
  const std::string page = PageOf(40, 38);
  const std::set<int> drawn = LegendRanks(page);
  EXPECT_EQ(drawn.size(), kDensityLegendRows);
  EXPECT_TRUE(drawn.contains(38));  // the straggler (an even sample of 16 or 15 leaves it out)
  EXPECT_TRUE(drawn.contains(0));
  EXPECT_GT(*drawn.rbegin() - *drawn.begin(), 30);  // spread over the ranks
  EXPECT_NE(page.find("16 of 40 ranks drawn"), std::string::npos);
}

}  // namespace
}  // namespace trainscope::report
