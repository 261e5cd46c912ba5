// A number that does not exist is n/a in the HTML tables and left out of
// the pictures, which say so: a rank without kernel_details.csv (as ranks 1
// and 3 of the corpus' 4-rank Qwen job) is neither a row of zeros nor a
// point at (0, 0), and a link without a time has no bandwidth.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "report/cluster_charts.h"
#include "report/html_report.h"
#include "report/html_sections.h"
#include "report/html_writer.h"

namespace trainscope::report {
namespace {

analysis::ClusterAnalysis ClusterWithARankWithoutKernels() {
  analysis::ClusterAnalysis c;
  c.present = true;
  c.step = 7;
  analysis::RankClusterStats with;
  with.rank = 0;
  with.step = 7;
  with.has_device_step = true;
  with.step_time_ns = 120'000'000;
  with.step_start_offset_ns = 2'000'000;
  analysis::RankClusterStats other = with;
  other.rank = 2;
  other.step_time_ns = 118'000'000;
  other.step_start_offset_ns = 0;
  analysis::RankClusterStats without;
  without.rank = 1;
  without.step = 7;
  without.has_device_step = false;
  c.per_rank = {with, without, other};
  return c;
}

TEST(UnknownInPictures, TheScatterLeavesOutARankWithoutDeviceEventsAndSaysSo) {
  const std::string svg = RankScatterSvg(ClusterWithARankWithoutKernels()).markup();
  EXPECT_NE(
      svg.find("not plotted: rank 1 (no device events in the step, or its timeline set aside)"),
      std::string::npos)
      << svg;
  EXPECT_NE(svg.find("rank 0: start +2.00 ms, step 120.00 ms"), std::string::npos) << svg;
  EXPECT_NE(svg.find("rank 2: start +0.00 ms, step 118.00 ms"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("rank 1:"), std::string::npos) << svg;
  // The y axis spans the plotted ranks (118-120 ms, padded by a tenth of
  // the range: 117.8-120.2 ms, round ticks every 0.5 ms from 118.0), not
  // down to a rank's unknown 0.
  EXPECT_NE(svg.find(">118.0 ms<"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">120.0 ms<"), std::string::npos) << svg;
  // "0.0 ms" once: the x axis's first tick (the offsets, 0-2 ms), not a y tick.
  const size_t zero = svg.find(">0.0 ms<");
  ASSERT_NE(zero, std::string::npos) << svg;
  EXPECT_EQ(svg.find(">0.0 ms<", zero + 1), std::string::npos) << svg;
}

TEST(UnknownInPictures, AScatterOfNoRankWithDeviceEventsSaysSo) {
  analysis::ClusterAnalysis c = ClusterWithARankWithoutKernels();
  for (auto& r : c.per_rank) r.has_device_step = false;
  const std::string svg = RankScatterSvg(c).markup();
  EXPECT_NE(svg.find("not plotted: no rank has a device timeline of the step"), std::string::npos);
  EXPECT_EQ(svg.find("<rect"), std::string::npos) << svg;
}

TEST(UnknownInPictures, TheRanksTableShowsNaForARankWithoutItsKernelTable) {
  analysis::JobAnalysis job;
  for (int32_t r = 0; r < 2; ++r) {
    analysis::RankAnalysis rank;
    rank.header.rank = r;
    rank.selected_step = 7;
    analysis::StepDistribution step;
    step.step = 7;
    if (r == 0) {
      step.kernels.count = 3;
      step.kernels.compute_count = 3;
      step.kernels.span_ns = 1'500'000;
      step.kernels.p50_ns = 40'000;
      step.kernels.p90_ns = 90'000;
    } else {
      rank.header.missing_files = {"kernel_details.csv"};
      step.kernels.known = false;  // no source of device events
    }
    rank.steps.push_back(step);
    job.ranks.push_back(std::move(rank));
  }
  HtmlWriter out;
  RenderRanksSection(out, job);
  const std::string html = std::move(out).Finish().markup();
  // The number cells hold their raw values for the table sort (data-v).
  EXPECT_NE(html.find("<tr><td>0</td><td>7</td><td data-v=\"3\">3</td><td data-v=\"1500000\">1.50 "
                      "ms</td><td data-v=\"40000\">40.0 µs</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<tr><td>1</td><td>7</td><td>n/a</td><td>n/a</td><td>n/a</td><td>n/a</"
                      "td><td>n/a</td><td>n/a</td><td>n/a</td><td>n/a</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("(no kernels: kernel_details.csv)"), std::string::npos) << html;
  EXPECT_EQ(html.find("<td>0 ns</td>"), std::string::npos) << html;
}

TEST(UnknownInPictures, ALinkWithoutATimeHasNoBandwidthInTheMatrix) {
  analysis::ClusterAnalysis c;
  c.link_matrix = {{0, 1, "HCCS", 100.0, 2.0}, {1, 0, "HCCS", 100.0, 0.0}};
  const std::string svg = LinkMatrixSvg(c).markup();
  EXPECT_NE(svg.find("0 -> 1 HCCS: 100.0 MB in 2.00 ms, 50.00 GB/s"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("1 -> 0 HCCS"), std::string::npos) << svg;
  EXPECT_EQ(svg.find(" 0.00 GB/s"), std::string::npos) << svg;
  EXPECT_NE(svg.find("1 link(s) without a time:"), std::string::npos) << svg;
}

// The first screen (report/overview_html.cc): the verdict, the per-rank
// stacked bars and the findings one line each, and the gain models stated
// once; a rank without a time budget is left out of the bars and named.
// Numbers by hand from the budgets built here.

// A rank showing step 4 with the time budget |total| = |compute| +
// |exposed| + |idle| + the rest (copies), in ms.
analysis::RankAnalysis OverviewTestRank(int32_t rank, int64_t total_ms, int64_t compute_ms,
                                        int64_t exposed_ms, int64_t idle_ms) {
  analysis::RankAnalysis r;
  r.header.rank = rank;
  r.selected_step = 4;
  analysis::StepDistribution step;
  step.step = 4;
  analysis::StepBudget budget;
  budget.budget.total_ns = total_ms * 1'000'000;
  budget.budget.computation_ns = compute_ms * 1'000'000;
  budget.budget.exposed_communication_ns = exposed_ms * 1'000'000;
  budget.budget.idle_ns = idle_ms * 1'000'000;
  step.breakdown = budget;
  r.steps.push_back(step);
  r.timeline.step = 4;
  return r;
}

analysis::Finding OverviewTestFinding(std::string id, double gain, std::string model) {
  analysis::Finding f;
  f.id = std::move(id);
  f.title = "title of " + f.id;
  f.evidence = "evidence of " + f.id;
  f.remedy = "remedy of " + f.id;
  f.estimated_gain_pct = gain;
  f.gain_model = std::move(model);
  f.ranks = {0, 1};
  return f;
}

// Rank 0: 100 ms = 60 compute + 20 exposed + 15 idle + 5 other, 8 ms
// step-start wait. Rank 1: 80 ms = 40 + 20 + 20 + 0. Rank 2: no budget.
// Seven findings, two of them sharing one gain model.
analysis::JobAnalysis OverviewTestJob() {
  analysis::JobAnalysis job;
  job.ranks.push_back(OverviewTestRank(0, 100, 60, 20, 15));
  job.ranks.back().timeline.step_start_idle_ns = 8'000'000;
  job.ranks.back().timeline.step_start_waits_for = "HcclAllReduce";
  job.ranks.push_back(OverviewTestRank(1, 80, 40, 20, 20));
  analysis::RankAnalysis without;
  without.header.rank = 2;
  without.selected_step = 4;
  job.ranks.push_back(without);
  const char* ids[] = {"exposed-communication", "host-bound", "dominant-operator", "host-sync",
                       "input-bound",           "slow-link",  "pseudo-overlap"};
  for (int i = 0; i < 7; ++i) {
    const std::string model =
        i == 6 ? "model of exposed-communication" : std::string("model of ") + ids[i];
    job.findings.push_back(OverviewTestFinding(ids[i], 20.0 - 2 * i, model));
  }
  job.projection.step_ns = 90'000'000;
  job.projection.projected_step_ns = 45'000'000;
  job.projection.combined_gain_pct = 50;
  job.projection.groups = 6;
  return job;
}

size_t OverviewCount(const std::string& text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string OverviewSummaryOf(const analysis::JobAnalysis& job) {
  HtmlWriter out;
  RenderSummarySection(out, job);
  return std::move(out).Finish().markup();
}

TEST(HtmlOverview, TheVerdictSaysTheStepAndWhereItGoes) {
  const std::string html = OverviewSummaryOf(OverviewTestJob());
  // Summed over ranks 0 and 1: 180 ms = 100 compute (55.6%), 40 exposed
  // (22.2%), 35 idle (19.4%), 5 other (2.8%); the step is the projection's.
  EXPECT_NE(html.find("Step 4 takes <b>90.0 ms</b> (the ranks&#39; mean): <b class=\"t-c\">55.6% "
                      "compute</b>, <b class=\"t-x\">22.2% exposed communication</b>, <b "
                      "class=\"t-i\">19.4% idle</b> and 2.8% other; applying the 7 findings "
                      "below could bring it to <b>45.0 ms</b> (−50.0%)."),
            std::string::npos)
      << html;
}

TEST(HtmlOverview, OneBarPerRankToOneScaleAndTheRankWithoutABudgetNamed) {
  const std::string html = OverviewSummaryOf(OverviewTestJob());
  // Rank 0's bar is the longest (100%); rank 1's is 80 of 100 ms.
  EXPECT_NE(html.find("<span class=\"rb-bar\" style=\"width:100.000%\"><i class=\"c\" "
                      "style=\"width:60.000%\"></i><i class=\"x\" style=\"width:20.000%\"></i><i "
                      "class=\"i\" style=\"width:15.000%\"></i><i class=\"o\" "
                      "style=\"width:5.000%\"></i></span><b class=\"w\" style=\"width:8.000%\">"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<span class=\"rb-bar\" style=\"width:80.000%\"><i class=\"c\" "
                      "style=\"width:50.000%\"></i><i class=\"x\" style=\"width:25.000%\"></i><i "
                      "class=\"i\" style=\"width:25.000%\"></i></span></span>"),
            std::string::npos)
      << html;
  EXPECT_EQ(OverviewCount(html, "<div class=\"rb\" "), 2u);
  EXPECT_NE(html.find("Not drawn: rank 2 (no time budget"), std::string::npos) << html;
  EXPECT_NE(html.find("step-start wait: 8.00 ms (8.0%), while HcclAllReduce runs"),
            std::string::npos);
}

TEST(HtmlOverview, ManyRanksAreColumns) {
  analysis::JobAnalysis job;
  for (int32_t r = 0; r < 40; ++r) job.ranks.push_back(OverviewTestRank(r, 50 + r, 25, 5, 5));
  const std::string html = OverviewSummaryOf(job);
  EXPECT_EQ(OverviewCount(html, "<span class=\"rc\" "), 40u);
  EXPECT_EQ(OverviewCount(html, "<div class=\"rb\" "), 0u);
  // The longest step (rank 39, 89 ms) is full height; rank 0's 50 ms is 56.18%.
  EXPECT_NE(html.find("style=\"height:100.000%\""), std::string::npos);
  EXPECT_NE(html.find("style=\"height:56.180%\""), std::string::npos);
  EXPECT_NE(html.find("no finding is above the thresholds"), std::string::npos);
}

TEST(HtmlOverview, FindingsOneLineEachTheFirstFiveShownEachGainModelOnce) {
  const analysis::JobAnalysis job = OverviewTestJob();
  const std::string page = RenderHtml(job, HtmlReportOptions{});
  // Each finding: its gain, the step with it alone fixed (90 ms x (1 - g)).
  EXPECT_NE(page.find("<span class=\"gain\">20.0%</span><span class=\"proj\" title=\"the step "
                      "with this finding alone fixed\">→ 72.0 ms</span>"),
            std::string::npos);
  EXPECT_NE(page.find("<span class=\"gain\">8.0%</span><span class=\"proj\" title=\"the step with "
                      "this finding alone fixed\">→ 82.8 ms</span>"),
            std::string::npos);
  const size_t more = page.find("<details class=\"more-findings\"><summary>2 more findings");
  ASSERT_NE(more, std::string::npos);
  EXPECT_LT(page.find("id=\"finding-5\""), more);
  EXPECT_GT(page.find("id=\"finding-6\""), more);
  // Six distinct models, each stated once; findings 1 and 7 share one.
  for (const char* id : {"exposed-communication", "host-bound", "dominant-operator", "host-sync",
                         "input-bound", "slow-link"}) {
    EXPECT_EQ(OverviewCount(page, std::string("model of ") + id), 1u) << id;
  }
  EXPECT_NE(page.find("<dt id=\"gain-model-1\">Gain model 1: <code>exposed-communication</code>, "
                      "<code>pseudo-overlap</code> <span class=\"muted\">(findings <a "
                      "href=\"#finding-1\">1</a>, <a href=\"#finding-7\">7</a>)</span></dt>"),
            std::string::npos);
  EXPECT_EQ(OverviewCount(page, "<a href=\"#gain-model-1\">"), 2u);
  EXPECT_EQ(OverviewCount(page, "<a href=\"#gain-model-6\">"), 1u);
  EXPECT_EQ(page.find("gain-model-7\""), std::string::npos);
  EXPECT_NE(page.find("id=\"gain-model-combined\""), std::string::npos);
  // The first screen comes before the interactive timeline.
  EXPECT_LT(page.find("id=\"top-findings\""), page.find("<section id=\"interactive\""));
  EXPECT_LT(page.find("<section id=\"interactive\""), page.find("<section id=\"distribution\""));
}

}  // namespace
}  // namespace trainscope::report
