// The sections of the HTML report, one function each (html_sections.cc).
#pragma once

#include <string>
#include <vector>

#include "analysis/job/rank_analysis.h"
#include "report/html_writer.h"

namespace trainscope::report {

// The first screen: the verdict, the per-rank bars and the findings one line each.
void RenderSummarySection(HtmlWriter& out, const analysis::JobAnalysis& job);
// The focus rank's step in numbers (kernels, spans, budget shares).
void RenderFocusSection(HtmlWriter& out, const analysis::RankAnalysis* focus);
void RenderDistributionSection(HtmlWriter& out, const analysis::JobAnalysis& job,
                               const analysis::RankAnalysis* focus);
void RenderTimelineSection(HtmlWriter& out, const analysis::RankAnalysis* focus);
void RenderRanksSection(HtmlWriter& out, const analysis::JobAnalysis& job);
void RenderDetailsSection(HtmlWriter& out, const analysis::JobAnalysis& job);

// overview_html.cc: the summary's parts. The verdict in one sentence and one
// stacked bar per rank (compute / exposed communication / idle / other, the
// step-start wait under it); ranks without a time budget are left out and
// named.
void RenderVerdict(HtmlWriter& out, const analysis::JobAnalysis& job);
// The findings one line each (gain, the step with it alone fixed, title,
// ranks), the first five shown, evidence, cause and remedy folded under each.
void RenderTopFindings(HtmlWriter& out, const analysis::JobAnalysis& job);
// Each distinct gain model of the findings, once, anchored #gain-model-N
// (N: the position in GainModelTexts, 1-based), and the combined projection's.
void RenderGainModelsSection(HtmlWriter& out, const analysis::JobAnalysis& job);
std::vector<std::string> GainModelTexts(const analysis::JobAnalysis& job);

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
