// Motifs section: the periodic kernel chains of the focus rank's selected
// step (terminal) and of every step (JSON).
#include <fmt/format.h>

#include <algorithm>

#include "core/safe_text.h"
#include "report/sections.h"
#include "report/text_report.h"
#include "report/units.h"

namespace trainscope::report {
namespace {

constexpr size_t kTextMotifs = 10;
constexpr size_t kChainShown = 14;

std::string Chain(const std::vector<std::string>& kernels) {
  std::string out;
  for (size_t i = 0; i < kernels.size() && i < kChainShown; ++i)
    out += (i ? " " : "") + TerminalSafe(kernels[i]);
  if (kernels.size() > kChainShown) out += fmt::format(" ... (+{})", kernels.size() - kChainShown);
  return out;
}

}  // namespace

void RenderMotifsText(std::string& out, const analysis::RankAnalysis& rank, bool color) {
  const analysis::StepDistribution* step = rank.selected();
  if (step == nullptr || step->motifs.empty()) return;
  auto bold = [&](const std::string& text) { return color ? "\033[1m" + text + "\033[0m" : text; };
  out += bold(fmt::format("Motifs of rank {}, {}", rank.header.rank, StepName(step->step))) +
         " (repeating kernel chains, by total time)\n";
  out += fmt::format("  {:>5} {:>9} {:>9} {:>6}  {:<22} {}\n", "occ", "period", "total", "share",
                     "fingerprint", "chain");
  for (size_t i = 0; i < step->motifs.size() && i < kTextMotifs; ++i) {
    const auto& m = step->motifs[i];
    const std::string fp =
        m.fingerprint ? TerminalSafe(*m.fingerprint + (m.variant ? " " + *m.variant : "")) : "-";
    out += fmt::format("  {:>5} {:>7.0f}us {:>7.2f}ms {:>5.1f}%  {:<22} [{}] {}\n", m.occurrences,
                       Us(m.period_ns), Ms(m.total_ns), m.share_of_step * 100, fp, m.kernels.size(),
                       Chain(m.kernels));
    if (!m.attribution.empty())
      out += fmt::format("  {:>34}  {}\n", "", TerminalSafe(m.attribution));
  }
  if (step->motifs.size() > kTextMotifs) {
    out += fmt::format("  ... {} more in the JSON report\n", step->motifs.size() - kTextMotifs);
  }
  out += "\n";
}

void WriteMotifsJson(JsonWriter& w, const analysis::StepDistribution& step) {
  w.Key("motifs").BeginArray();
  for (const auto& m : step.motifs) {
    w.BeginObject();
    w.Key("kernels").BeginArray();
    for (const auto& k : m.kernels) w.String(k);
    w.EndArray();
    w.Field("occurrences", m.occurrences);
    w.Key("period_us").Double(Us(m.period_ns), 3);
    w.Key("total_us").Double(Us(m.total_ns), 3);
    w.Key("mean_us").Double(MeanUs(m.total_ns, m.occurrences), 3);
    w.Key("share_of_step").Double(m.share_of_step, 6);
    w.Key("fingerprint");
    if (m.fingerprint) {
      w.String(*m.fingerprint);
    } else {
      w.Null();
    }
    w.Key("variant");
    if (m.variant) {
      w.String(*m.variant);
    } else {
      w.Null();
    }
    w.Field("stream", m.stream);
    w.Field("framework_op", m.framework_op);
    w.Field("source", m.source);
    w.Field("attribution", m.attribution);
    w.Key("instance_starts_us").BeginArray();
    for (const int64_t start_ns : m.instance_starts_ns) w.Double(Us(start_ns), 3);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace trainscope::report
