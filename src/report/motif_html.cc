// The HTML report's motif section: the periodic kernel chains of the focus
// rank's selected step, fingerprinted ones first.
#include <fmt/format.h>

#include <algorithm>

#include "report/html_sections.h"
#include "report/svg.h"
#include "report/text_report.h"
#include "report/units.h"

namespace trainscope::report {

void RenderMotifsHtml(HtmlWriter& out, const analysis::RankAnalysis* focus) {
  if (focus == nullptr || focus->selected() == nullptr) return;
  const auto& motifs = focus->selected()->motifs;
  out.Raw("<section id=\"motifs\"><h2>Repeating kernel chains (motifs)</h2>\n");
  if (motifs.empty()) {
    out.Raw(
        "<p class=\"muted\">No repeating chain of 3 or more kernels in this step.</p></section>\n");
    return;
  }
  out.Format(
      "<p>Rank {}, {}: chains of operator types that repeat in the device kernel sequence, "
      "matched to "
      "known unfused patterns (fingerprints). One instance is shown per row.</p>\n",
      focus->header.rank, StepName(focus->selected_step));
  out.Raw(
      "<table><tr><th class=\"l\">fingerprint</th><th class=\"l\">chain (one "
      "instance)</th><th>kernels</th>"
      "<th>instances</th><th>period</th><th>total</th><th>mean</th><th>share of step</th>"
      "<th class=\"l\">where</th></tr>\n");
  std::vector<const analysis::Motif*> sorted;
  sorted.reserve(motifs.size());
  for (const auto& motif : motifs) sorted.push_back(&motif);
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
    if (a->fingerprint.has_value() != b->fingerprint.has_value()) return a->fingerprint.has_value();
    return a->total_ns > b->total_ns;
  });
  for (const auto* motif : sorted) {
    std::string chain;
    for (size_t i = 0; i < motif->kernels.size(); ++i) {
      if (i == 24) {
        chain += fmt::format(" … (+{})", motif->kernels.size() - 24);
        break;
      }
      chain += (i ? " → " : "") + motif->kernels[i];
    }
    std::string fingerprint = motif->fingerprint ? *motif->fingerprint : "—";
    if (motif->fingerprint && motif->variant) fingerprint += " (" + *motif->variant + ")";
    std::string where = motif->source.empty() ? motif->attribution : motif->source;
    out.Format(
        "<tr><td class=\"l\">{}</td><td "
        "class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td class=\"l\">{}</td></tr>\n",
        fingerprint, chain, motif->kernels.size(), motif->occurrences,
        FormatDurationNs(motif->period_ns), FormatDurationNs(motif->total_ns),
        FormatDurationUs(MeanUs(motif->total_ns, motif->occurrences)),
        FormatPercent(motif->share_of_step), where);
  }
  out.Raw("</table></section>\n");
}

}  // namespace trainscope::report
