#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

#include "core/rank_ranges.h"
#include "core/safe_text.h"
#include "report/sections.h"
#include "report/text_report.h"
#include "report/units.h"

namespace trainscope::report {

namespace {

bool NoRankHasDeviceActivity(const analysis::JobAnalysis& job) {
  return !job.ranks.empty() && job.ranks_without_device_activity.size() == job.ranks.size();
}

// "-29.1%: step 421.0 ms -> 298.5 ms", or the share alone without a step.
std::string ProjectionText(const analysis::GainProjection& p) {
  if (p.groups == 0 && p.withheld > 0) {
    return "n/a: every finding's gain is withheld (not enough to judge)";
  }
  if (p.step_ns && p.projected_step_ns) {
    return fmt::format("-{:.1f}%: step {} -> {}", p.combined_gain_pct, FormatDurationNs(*p.step_ns),
                       FormatDurationNs(*p.projected_step_ns));
  }
  return fmt::format("-{:.1f}% of the step (step time unknown)", p.combined_gain_pct);
}

}  // namespace

std::string RankLabel(const std::vector<int32_t>& ranks, size_t total_ranks) {
  if (total_ranks > 0 && ranks.size() > 1) {
    std::string set = CompactRankSet(ranks, total_ranks);
    if (set.starts_with("all ")) return fmt::format("[{}]", set);  // "all 1,024 ranks but 7"
  }
  return fmt::format("[rank{} {}]", ranks.size() > 1 ? "s" : "", CompactRankList(ranks));
}

void RenderPortraitText(std::string& out, const analysis::JobAnalysis& job,
                        const TextReportOptions& options) {
  const bool color = options.color;
  auto bold = [&](const std::string& text) { return color ? "\033[1m" + text + "\033[0m" : text; };
  if (NoRankHasDeviceActivity(job)) {
    out += bold("No device activity") + ": " + analysis::kNoDeviceActivityMessage + "\n";
    out += fmt::format("  remedy: {}\n\n", analysis::kNoDeviceActivityRemedy);
    return;
  }
  if (!job.ranks_without_device_activity.empty()) {
    out += bold(fmt::format("No device activity on rank{} {}",
                            job.ranks_without_device_activity.size() > 1 ? "s" : "",
                            CompactRankList(job.ranks_without_device_activity))) +
           ": " + analysis::kNoDeviceActivityMessage + "\n";
    out += fmt::format("  remedy: {}\n\n", analysis::kNoDeviceActivityRemedy);
  }
  if (job.findings.empty()) {
    out += bold("Findings") + ": none above the thresholds of the method\n\n";
    return;
  }
  out += bold("Findings, ranked by estimated gain") + "\n";
  int index = 0;
  // Evidence, cause and remedy under a 20-column label, wrapped to the
  // terminal when it is known.
  constexpr int kLabelColumns = 20;
  auto paragraph = [&](const char* label, const std::string& text) {
    out += fmt::format("          {:<10}{}\n", label,
                       WrapParagraph(TerminalSafe(text), options.width, kLabelColumns));
  };
  const size_t shown =
      options.top > 0 ? std::min(options.top, job.findings.size()) : job.findings.size();
  const bool brief = options.top > 0;
  for (size_t f = 0; f < shown; ++f) {
    const analysis::Finding& finding = job.findings[f];
    // The title is true of these ranks; the others, each under its own.
    const std::vector<int32_t> meeting = analysis::RanksMeetingTitle(finding);
    std::string where;
    // fmt::format, not a literal + a temporary: GCC 12 at -O3 (the release preset) warns falsely
    // of overlapping copies there (-Wrestrict, GCC bug 105329).
    if (!meeting.empty() && meeting.size() < job.ranks.size())
      where = fmt::format(" {}", RankLabel(meeting, job.ranks.size()));
    const std::string gain = finding.gain_withheld
                                 ? std::string("  n/a ")
                                 : fmt::format("{:>5.1f}%", finding.estimated_gain_pct);
    out += fmt::format("{:>3}. {}  {}{}  ({})\n", ++index, gain, TerminalSafe(finding.title), where,
                       finding.id);
    // --top: one screen, so each finding is its title and its remedy.
    if (!brief) {
      for (const auto& [title, ranks] : analysis::RanksWithOtherTitles(finding))
        paragraph("also:", fmt::format("{}: {}", RankLabel(ranks, job.ranks.size()), title));
      paragraph("evidence:", finding.evidence);
      if (finding.gain_withheld) paragraph("gain:", finding.gain_model);
      if (!finding.root_cause.empty()) paragraph("cause:", finding.root_cause);
    }
    paragraph("remedy:", finding.remedy);
  }
  if (shown < job.findings.size()) {
    out +=
        fmt::format("  ... {} more finding{} (--top {} shows them)\n", job.findings.size() - shown,
                    job.findings.size() - shown == 1 ? "" : "s", job.findings.size());
  }
  if (brief) out += "  evidence and cause of each finding: without --top, or in the JSON\n";
  // The gains above overlap; this is what applying all of them would leave.
  const int64_t replayed = job.projection.replayed_findings;
  out += fmt::format(
      "  All findings applied: {}  (overlapping savings counted once{}; model in "
      "docs/findings.md)\n\n",
      ProjectionText(job.projection),
      replayed > 0 ? fmt::format("; {} {} replayed together across the ranks", replayed,
                                 replayed == 1 ? "finding" : "findings")
                   : "");
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
    if (finding.gain_withheld) {
      w.Key("estimated_gain_pct").Null();
    } else {
      w.Key("estimated_gain_pct").Double(finding.estimated_gain_pct, 2);
    }
    w.Field("gain_withheld", finding.gain_withheld);
    w.Field("gain_source", analysis::GainSource(finding));
    w.Field("gain_model", finding.gain_model);
    w.Key("per_rank").BeginArray();
    for (const analysis::RankEvidence& r : finding.per_rank) {
      w.BeginObject();
      w.Field("rank", r.rank);
      w.Field("title", r.title);
      w.Field("occurrences", r.occurrences);
      if (r.gain_withheld) {
        w.Key("estimated_gain_pct").Null();
      } else {
        w.Key("estimated_gain_pct").Double(r.estimated_gain_pct, 2);
      }
      w.Key("evidence_values").BeginObject();
      for (const auto& [key, value] : r.evidence_values) w.Key(key).Double(value, 4);
      w.EndObject();
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  const analysis::GainProjection& p = job.projection;
  w.Key("projection").BeginObject();
  // Every gain withheld: what applying them leaves is unknown, not 0%.
  const bool unknown = p.groups == 0 && p.withheld > 0;
  if (unknown) {
    w.Key("combined_gain_pct").Null();
  } else {
    w.Key("combined_gain_pct").Double(p.combined_gain_pct, 2);
  }
  w.Field("groups", p.groups);
  w.Field("withheld", p.withheld);
  w.Field("replayed_findings", p.replayed_findings);
  if (p.replayed_gain_pct) {
    w.Key("replayed_gain_pct").Double(*p.replayed_gain_pct, 2);
  } else {
    w.Key("replayed_gain_pct").Null();
  }
  const std::optional<int64_t> projected = unknown ? std::nullopt : p.projected_step_ns;
  for (const auto& [key, ns] :
       {std::pair{"step_time_us", p.step_ns}, std::pair{"projected_step_time_us", projected}}) {
    if (ns) {
      w.Field(key, Us(*ns));
    } else {
      w.Key(key).Null();
    }
  }
  w.Field("model", std::string(analysis::kGainProjectionModel) +
                       (p.replayed_findings > 0 ? analysis::kReplayedProjectionModel : ""));
  w.EndObject();
  if (job.ranks_without_device_activity.empty()) {
    w.Key("no_device_activity").Null();
  } else {
    w.Key("no_device_activity").BeginObject();
    w.Key("ranks").BeginArray();
    for (int32_t rank : job.ranks_without_device_activity) w.Int(rank);
    w.EndArray();
    w.Field("message", analysis::kNoDeviceActivityMessage);
    w.Field("remedy", analysis::kNoDeviceActivityRemedy);
    w.EndObject();
  }
}

}  // namespace trainscope::report
