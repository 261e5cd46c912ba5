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

// The chain's kernels, at most kChainShown, then "... (+N)". With |columns|
// > 0 (a terminal, not --wide) the text is cut to that many columns with
// "... (+N)" naming the kernels left out, so a motif stays one line.
std::string Chain(const std::vector<std::string>& kernels, size_t columns) {
  std::string out;
  size_t shown = 0;
  for (; shown < kernels.size() && shown < kChainShown; ++shown) {
    const std::string name = TerminalSafe(kernels[shown]);
    if (columns > 0 && shown > 0) {
      // Room for this name and the longest possible tail.
      const std::string tail = fmt::format(" ... (+{})", kernels.size() - shown);
      if (VisibleColumns(out) + 1 + VisibleColumns(name) + tail.size() > columns) break;
    }
    out += (shown ? " " : "") + name;
  }
  if (columns > 0 && shown == 1) {
    // One name longer than the room: cut it, leaving room for the tail.
    const std::string tail =
        shown < kernels.size() ? fmt::format(" ... (+{})", kernels.size() - shown) : "";
    if (VisibleColumns(out) + tail.size() > columns) {
      out = CutToColumns(out, columns > tail.size() + 4 ? columns - tail.size() - 1 : 4) + "~";
    }
  }
  if (shown < kernels.size()) out += fmt::format(" ... (+{})", kernels.size() - shown);
  return out;
}

}  // namespace

void RenderMotifsText(std::string& out, const analysis::RankAnalysis& rank, bool color, int width) {
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
    const std::string head =
        fmt::format("  {:>5} {:>7.0f}µs {:>7.2f}ms {:>5.1f}%  {:<22} [{}] ", m.occurrences,
                    Us(m.period_ns), Ms(m.total_ns), m.share_of_step * 100, fp, m.kernels.size());
    // The chain gets what the row leaves of the width (at least 16 columns:
    // the row then wraps once rather than showing nothing).
    const size_t used = std::min<size_t>(VisibleColumns(head), static_cast<size_t>(width));
    const size_t room = width <= 0 ? 0 : std::max<size_t>(16, static_cast<size_t>(width) - used);
    out += head + Chain(m.kernels, room) + "\n";
    if (!m.attribution.empty())
      out += fmt::format("  {:>34}  {}\n", "", TerminalSafe(m.attribution));
    if (m.derived_types > 0) {
      out += fmt::format(
          "  {:>34}  {} of {} op types derived from kernel names (the export gives "
          "none){}\n",
          "", m.derived_types, m.kernels.size(),
          m.fingerprint ? ": the fingerprint match rests on them" : "");
    }
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
    w.Field("fingerprint", m.fingerprint);
    w.Field("variant", m.variant);
    w.Field("stream", m.stream);
    w.Field("framework_op", m.framework_op);
    w.Field("source", m.source);
    w.Field("attribution", m.attribution);
    w.Field("derived_types", m.derived_types);
    w.Key("instance_starts_us").BeginArray();
    for (const int64_t start_ns : m.instance_starts_ns) w.Double(Us(start_ns), 3);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace trainscope::report
