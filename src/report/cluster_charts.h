// SVG scatter of the ranks: step-start offset (x) against step time (y),
// stragglers highlighted. The lead places it in the HTML report.
#pragma once

#include <string>

#include "analysis/cluster/cluster.h"
#include "report/html_writer.h"

namespace trainscope::report {

HtmlFragment RankScatterSvg(const analysis::ClusterAnalysis& cluster);

// Heatmap of the link matrix: one cell per (src row, dst column), its
// colour the bandwidth relative to the fastest link of the same transport
// (dark = as fast as the best, pale = slow), its tooltip the transport, data,
// time and GB/s. Transports differ by an order of magnitude (HCCS vs RDMA),
// so cells compare within their transport. Empty when there is no link.
HtmlFragment LinkMatrixSvg(const analysis::ClusterAnalysis& cluster);

}  // namespace trainscope::report
