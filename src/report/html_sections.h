// The sections of the HTML report, one function each (html_sections.cc).
#pragma once

#include <string>

#include "analysis/job/rank_analysis.h"
#include "report/html_writer.h"

namespace trainscope::report {

void RenderSummarySection(HtmlWriter& out, const analysis::JobAnalysis& job,
                          const analysis::RankAnalysis* focus);
void RenderDistributionSection(HtmlWriter& out, const analysis::JobAnalysis& job,
                               const analysis::RankAnalysis* focus);
void RenderTimelineSection(HtmlWriter& out, const analysis::RankAnalysis* focus);
void RenderRanksSection(HtmlWriter& out, const analysis::JobAnalysis& job);
void RenderDetailsSection(HtmlWriter& out, const analysis::JobAnalysis& job);

// cluster_report.cc (the Clusters work): cross-rank pictures and tables.
void RenderClusterHtml(HtmlWriter& out, const analysis::JobAnalysis& job);
// motif_report.cc (the Fingerprints work): motifs of the focus rank.
void RenderMotifsHtml(HtmlWriter& out, const analysis::RankAnalysis* focus);
// efficiency_html.cc: per-shape operator efficiency of the focus rank (nothing without shapes).
void RenderEfficiencyHtml(HtmlWriter& out, const analysis::RankAnalysis* focus);
// module_html.cc: the nn.Module time tree of the focus rank's step (nothing
// without module annotations).
void RenderModuleTreeHtml(HtmlWriter& out, const analysis::JobAnalysis& job,
                          const analysis::RankAnalysis* focus);
// memory_html.cc: the focus rank's allocator curves, holders and headroom;
// every rank's peaks (nothing without memory data).
void RenderMemoryHtml(HtmlWriter& out, const analysis::JobAnalysis& job,
                      const analysis::RankAnalysis* focus);

}  // namespace trainscope::report
