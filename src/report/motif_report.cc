#include "report/sections.h"

namespace trainscope::report {

// Stubs until the Fingerprints work lands.
void RenderMotifsText(std::string&, const analysis::RankAnalysis&, bool) {}
void WriteMotifsJson(JsonWriter& w, const analysis::StepDistribution&) { w.Key("motifs").BeginArray().EndArray(); }

}  // namespace trainscope::report
