// Motifs section: the periodic kernel chains of the focus rank's selected
// step (terminal) and of every step (JSON).
#include <fmt/format.h>

#include <algorithm>

#include "core/safe_text.h"
#include "model/kernel_names.h"
#include "report/sections.h"
#include "report/text_report.h"
#include "report/text_table.h"
#include "report/units.h"

namespace trainscope::report {
namespace {

constexpr size_t kTextMotifs = 10;
// A chain's kernel names are shortened to this many columns each.
constexpr size_t kChainNameColumns = 28;
// A chain shown on a pipe takes at most this many columns.
constexpr size_t kPipeChainColumns = 100;
// On a terminal, a chain with less room than this beside its row goes on
// the next line.
constexpr size_t kMinChainRoom = 36;
constexpr size_t kChainIndent = 8;

// The chain as "MatMul → Add → … (66 kernels)" in at most |room| columns:
// as many of its first kernels as fit (each shortened the way tables
// shorten names), then how many kernels the whole chain has. One kernel is
// always shown, shortened further when needed.
std::string ChainSummary(const std::vector<std::string>& kernels, size_t room) {
  if (kernels.empty()) return "";
  std::vector<std::string> full;
  full.reserve(kernels.size());
  for (const std::string& kernel : kernels) full.push_back(TerminalSafe(kernel));
  const std::vector<std::string> names =
      model::DistinctElidedNames(full, std::clamp<size_t>(room / 3, 12, kChainNameColumns));
  std::string all = names[0];
  for (size_t i = 1; i < names.size(); ++i) all += " → " + names[i];
  if (VisibleColumns(all) <= room) return all;
  const std::string count = fmt::format(" → … ({} kernels)", kernels.size());
  const size_t count_columns = VisibleColumns(count);
  std::string out = names[0];
  size_t columns = VisibleColumns(out);
  for (size_t i = 1; i < names.size(); ++i) {
    const size_t add = 3 + VisibleColumns(names[i]);
    if (columns + add + count_columns > room) break;
    out += " → " + names[i];
    columns += add;
  }
  if (columns + count_columns > room) {
    out = model::ElideName(full[0], room > count_columns + 8 ? room - count_columns : 8);
  }
  return out + count;
}

}  // namespace

void RenderMotifsText(std::string& out, const analysis::RankAnalysis& rank, bool color, int width) {
  const analysis::StepDistribution* step = rank.selected();
  if (step == nullptr || step->motifs.empty()) return;
  auto bold = [&](const std::string& text) { return color ? "\033[1m" + text + "\033[0m" : text; };
  if (!out.empty() && !out.ends_with("\n\n")) out += "\n";
  out += bold(fmt::format("Motifs of rank {}, {}", rank.header.rank, StepName(step->step))) +
         " (repeating kernel chains, by total time)\n";
  const size_t shown = std::min(step->motifs.size(), kTextMotifs);
  std::vector<std::string> fingerprints;
  size_t fp_width = VisibleColumns("fingerprint");
  for (size_t i = 0; i < shown; ++i) {
    const auto& m = step->motifs[i];
    fingerprints.push_back(
        m.fingerprint ? model::ElideName(
                            TerminalSafe(*m.fingerprint + (m.variant ? " " + *m.variant : "")), 32)
                      : "-");
    fp_width = std::max(fp_width, VisibleColumns(fingerprints.back()));
  }
  out += fmt::format("  {:>5} {:>9} {:>9} {:>6}  {}  chain\n", "occ", "period", "total", "share",
                     PadToColumns("fingerprint", fp_width));
  for (size_t i = 0; i < shown; ++i) {
    const auto& m = step->motifs[i];
    const std::string head =
        fmt::format("  {:>5} {:>9} {:>9} {:>6}  {}  ", m.occurrences, FormatDurationNs(m.period_ns),
                    FormatDurationNs(m.total_ns), FormatPercent(m.share_of_step),
                    PadToColumns(fingerprints[i], fp_width));
    const size_t used = VisibleColumns(head);
    if (width <= 0) {
      out += head + ChainSummary(m.kernels, kPipeChainColumns) + "\n";
    } else if (static_cast<size_t>(width) >= used + kMinChainRoom) {
      out += head + ChainSummary(m.kernels, static_cast<size_t>(width) - used) + "\n";
    } else {
      std::string row = head;
      while (!row.empty() && row.back() == ' ') row.pop_back();
      out += row + "\n" + std::string(kChainIndent, ' ') +
             ChainSummary(m.kernels, static_cast<size_t>(std::max(width, 40)) - kChainIndent) +
             "\n";
    }
    if (!m.attribution.empty())
      out += std::string(kChainIndent, ' ') + TerminalSafe(m.attribution) + "\n";
    if (m.derived_types > 0) {
      out += fmt::format(
          "{}{} of {} op types derived from kernel names (the export gives "
          "none){}\n",
          std::string(kChainIndent, ' '), m.derived_types, m.kernels.size(),
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
