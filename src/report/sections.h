// Report sections that each live in their own file, so that each analysis
// owns how it is shown. text_report.cc and json_report.cc call them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/job/rank_analysis.h"
#include "report/json_writer.h"

namespace trainscope::report {

// findings (portrait_report.cc): the root-cause portrait.
struct TextReportOptions;
void RenderPortraitText(std::string& out, const analysis::JobAnalysis& job,
                        const TextReportOptions& options);
void WriteFindingsJson(JsonWriter& w, const analysis::JobAnalysis& job);
// "[rank 1]", "[ranks 2, 3]", "[ranks 0-511]", "[all 1,024 ranks but 7]":
// the ranks a finding's title (or another title of it) is true of, out of
// |total_ranks| (0: unknown, never "all").
std::string RankLabel(const std::vector<int32_t>& ranks, size_t total_ranks = 0);

// motifs (motif_report.cc): periodic chains of the selected step.
// |width|: the terminal's columns (0: chains kept whole up to the shown count).
void RenderMotifsText(std::string& out, const analysis::RankAnalysis& rank, bool color,
                      int width = 0);
void WriteMotifsJson(JsonWriter& w, const analysis::StepDistribution& step);

// cluster (cluster_report.cc): cross-rank analysis.
// |width|: the terminal's columns (0: a pipe); tables drop columns to fit.
void RenderClusterText(std::string& out, const analysis::JobAnalysis& job, bool color,
                       int width = 0);
void WriteClusterJson(JsonWriter& w, const analysis::JobAnalysis& job);
// Where the critical path's time goes, as shares of its span: "compute
// 80.1%, data loader 3.0%, ..." (the text and the HTML say the same).
std::string CriticalPathShares(const analysis::CriticalPath& path);
// "rank 0 25.1 ms (1 collective, mostly for rank 5: 25.1 ms), ...": the
// ranks that waited for the path, the |shown| longest waits; "" when none.
std::string PathWaitsText(const analysis::CriticalPath& path, size_t shown);
// "data loader 24.8 ms, launch 1.2 ms": the host's charges, "" when none.
std::string HostIdleText(const analysis::HostIdleTimes& host);

}  // namespace trainscope::report
