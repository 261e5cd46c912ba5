#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/safe_text.h"
#include "report/sections.h"
#include "report/text_report.h"

namespace trainscope::report {

void RenderPortraitText(std::string& out, const analysis::JobAnalysis& job, bool color) {
  auto bold = [&](const std::string& text) { return color ? "\033[1m" + text + "\033[0m" : text; };
  if (job.findings.empty()) {
    out += bold("Findings") + ": none above the thresholds of the method\n\n";
    return;
  }
  out += bold("Findings, ranked by estimated gain") + "\n";
  int index = 0;
  for (const auto& finding : job.findings) {
    std::string where;
    if (!finding.ranks.empty() && finding.ranks.size() < job.ranks.size()) {
      where = fmt::format(" [rank{} {}]", finding.ranks.size() > 1 ? "s" : "",
                          fmt::join(finding.ranks, ","));
    }
    out += fmt::format("{:>3}. {:>5.1f}%  {}{}  ({})\n", ++index, finding.estimated_gain_pct,
                       TerminalSafe(finding.title), where, finding.id);
    out += fmt::format("          evidence: {}\n", TerminalSafe(finding.evidence));
    if (!finding.root_cause.empty())
      out += fmt::format("          cause:    {}\n", TerminalSafe(finding.root_cause));
    out += fmt::format("          remedy:   {}\n", TerminalSafe(finding.remedy));
  }
  out += "\n";
}

void WriteFindingsJson(JsonWriter& w, const analysis::JobAnalysis& job) {
  w.Key("findings").BeginArray();
  for (const auto& finding : job.findings) {
    w.BeginObject();
    w.Field("id", finding.id);
    w.Field("title", finding.title);
    w.Key("ranks").BeginArray();
    for (int32_t rank : finding.ranks) w.Int(rank);
    w.EndArray();
    w.Field("occurrences", finding.occurrences);
    w.Field("evidence", finding.evidence);
    w.Key("evidence_values").BeginObject();
    for (const auto& [key, value] : finding.evidence_values) w.Key(key).Double(value, 4);
    w.EndObject();
    w.Field("root_cause", finding.root_cause);
    w.Field("remedy", finding.remedy);
    w.Key("estimated_gain_pct").Double(finding.estimated_gain_pct, 2);
    w.Field("gain_model", finding.gain_model);
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace trainscope::report
