// Default (empty) HTML sections for analyses that render their own HTML in
// their report file. Weak, so the analysis's real definition replaces it
// at link time once it exists.
#include "report/html_sections.h"

namespace trainscope::report {

__attribute__((weak)) void RenderClusterHtml(std::string&, const analysis::JobAnalysis&) {}
__attribute__((weak)) void RenderMotifsHtml(std::string&, const analysis::RankAnalysis*) {}

}  // namespace trainscope::report
