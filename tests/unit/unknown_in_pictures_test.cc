// A number that does not exist is n/a in the HTML tables and left out of
// the pictures, which say so: a rank without kernel_details.csv (as ranks 1
// and 3 of the corpus' 4-rank Qwen job) is neither a row of zeros nor a
// point at (0, 0), and a link without a time has no bandwidth.
#include <gtest/gtest.h>

#include <string>

#include "report/cluster_charts.h"
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
  EXPECT_NE(html.find("<tr><td>0</td><td>7</td><td>3</td><td>1.50 ms</td><td>40.0 µs</td>"),
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

}  // namespace
}  // namespace trainscope::report
