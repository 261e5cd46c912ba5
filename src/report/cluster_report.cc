#include "report/sections.h"

namespace trainscope::report {

// Stubs until the Clusters work lands.
void RenderClusterText(std::string&, const analysis::JobAnalysis&, bool) {}
void WriteClusterJson(JsonWriter& w, const analysis::JobAnalysis& job) {
  w.Key("cluster").BeginObject();
  w.Field("ranks", job.cluster.ranks);
  w.EndObject();
}

}  // namespace trainscope::report
