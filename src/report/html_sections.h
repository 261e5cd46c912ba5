// The sections of the HTML report, one function each (html_sections.cc).
#pragma once

#include <string>

#include "analysis/job/rank_analysis.h"

namespace trainscope::report {

void RenderSummarySection(std::string& out, const analysis::JobAnalysis& job,
                          const analysis::RankAnalysis* focus);
void RenderDistributionSection(std::string& out, const analysis::JobAnalysis& job,
                               const analysis::RankAnalysis* focus);
void RenderTimelineSection(std::string& out, const analysis::RankAnalysis* focus);
void RenderRanksSection(std::string& out, const analysis::JobAnalysis& job);
void RenderDetailsSection(std::string& out, const analysis::JobAnalysis& job);

// cluster_report.cc (the Clusters work): cross-rank pictures and tables.
void RenderClusterHtml(std::string& out, const analysis::JobAnalysis& job);
// motif_report.cc (the Fingerprints work): motifs of the focus rank.
void RenderMotifsHtml(std::string& out, const analysis::RankAnalysis* focus);

}  // namespace trainscope::report
