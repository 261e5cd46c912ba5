// SVG scatter of the ranks: step-start offset (x) against step time (y),
// stragglers highlighted. The lead places it in the HTML report.
#pragma once

#include <string>

#include "analysis/cluster/cluster.h"
#include "report/html_writer.h"

namespace trainscope::report {

HtmlFragment RankScatterSvg(const analysis::ClusterAnalysis& cluster);

}  // namespace trainscope::report
