#include "report/compare_gate_report.h"

#include <fmt/format.h>

#include "core/safe_text.h"

namespace trainscope::report {
namespace {

using analysis::GateCheck;
using analysis::GateVerdict;

void GateJsonOptional(JsonWriter& w, const char* key, std::optional<double> v, int decimals) {
  w.Key(key);
  if (v) {
    w.Double(*v, decimals);
  } else {
    w.Null();
  }
}

std::string GateNumber(std::optional<double> v, const char* format_spec) {
  return v ? fmt::format(fmt::runtime(format_spec), *v) : "n/a";
}

}  // namespace

void AppendWorkloadText(const analysis::WorkloadCheck& w, std::string* out) {
  out->append(fmt::format("\n  workload: {}\n", TerminalSafe(w.summary)));
  if (w.verdict != analysis::WorkloadVerdict::kDifferent) return;
  for (const analysis::WorkloadSignal& s : w.signals) {
    out->append(fmt::format("    {:<46} BASE {}  |  NEW {}{}\n", s.label, TerminalSafe(s.base),
                            TerminalSafe(s.next), s.differs ? "  (differs)" : ""));
  }
}

void AppendGateText(const analysis::GateResult& g, std::string* out) {
  out->append(fmt::format("\n  gate ({}; one-sided Mann-Whitney U at {:g}): {}\n",
                          TerminalSafe(g.rules), g.level, TerminalSafe(g.summary)));
  for (const GateCheck& c : g.checks) {
    const char* mark = c.verdict == GateVerdict::kRegression       ? "FAIL"
                       : c.verdict == GateVerdict::kCannotConclude ? "??? "
                                                                   : "ok  ";
    out->append(fmt::format("    {} {:<34} {}\n", mark, TerminalSafe(c.rule.substr(0, 34)),
                            TerminalSafe(c.reason)));
  }
}

void WriteWorkloadJson(JsonWriter& w, const analysis::WorkloadCheck& check) {
  w.Key("workload").BeginObject();
  w.Field("verdict", analysis::WorkloadVerdictKey(check.verdict));
  w.Field("summary", check.summary);
  GateJsonOptional(w, "kernel_mix_distance", check.kernel_mix_distance, 4);
  w.Key("signals").BeginArray();
  for (const analysis::WorkloadSignal& s : check.signals) {
    w.BeginObject();
    w.Field("id", s.id);
    w.Field("label", s.label);
    w.Field("base", s.base);
    w.Field("new", s.next);
    w.Field("decisive", s.decisive);
    w.Field("differs", s.differs);
    w.Field("detail", s.detail);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WriteGateJson(JsonWriter& w, const std::optional<analysis::GateResult>& gate) {
  w.Key("gate");
  if (!gate) {
    w.Null();
    return;
  }
  w.BeginObject();
  w.Field("verdict", analysis::GateVerdictKey(gate->verdict));
  w.Field("summary", gate->summary);
  w.Field("rules", gate->rules);
  w.Field("test", "mann-whitney-u-one-sided");
  w.Key("level").Double(gate->level, 4);
  w.Key("checks").BeginArray();
  for (const GateCheck& c : gate->checks) {
    w.BeginObject();
    w.Field("rule", c.rule);
    w.Field("metric", c.metric);
    w.Key("name").StringOrNull(c.name);
    w.Field("label", c.label);
    w.Key("threshold").Double(c.threshold, 4);
    w.Field("threshold_unit", c.relative ? "pct" : "ms");
    w.Field("verdict", analysis::GateVerdictKey(c.verdict));
    w.Field("reason", c.reason);
    w.Field("n_base", static_cast<int64_t>(c.n_base));
    w.Field("n_new", static_cast<int64_t>(c.n_next));
    GateJsonOptional(w, "base_median_ms", c.base_median_ms, 6);
    GateJsonOptional(w, "new_median_ms", c.next_median_ms, 6);
    GateJsonOptional(w, "shift_ms", c.shift_ms, 6);
    GateJsonOptional(w, "shift_pct", c.shift_pct, 4);
    GateJsonOptional(w, "base_spread_pct", c.base_spread_pct, 4);
    GateJsonOptional(w, "new_spread_pct", c.next_spread_pct, 4);
    GateJsonOptional(w, "u", c.u, 1);
    GateJsonOptional(w, "p_value", c.p_value, 8);
    GateJsonOptional(w, "min_p_value", c.min_p_value, 8);
    w.Field("exact", c.exact);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

HtmlFragment WorkloadGateHtml(const analysis::WorkloadCheck& w,
                              const std::optional<analysis::GateResult>& gate) {
  HtmlWriter out;
  out.Raw("<section id=\"workload\"><h2>Workload</h2>");
  out.Format("<p><b>{}</b></p>\n", w.summary);
  out.Raw("<table><tr><th>signal</th><th>BASE</th><th>NEW</th><th>differs</th><th></th></tr>\n");
  for (const analysis::WorkloadSignal& s : w.signals) {
    out.Format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", s.label,
               s.base, s.next, s.differs ? (s.decisive ? "yes" : "yes (evidence only)") : "no",
               s.detail);
  }
  out.Raw("</table></section>\n");
  if (!gate) return std::move(out).Finish();
  out.Raw("<section id=\"gate\"><h2>Regression gate</h2>");
  out.Format("<p><b>{}</b> (rules {}; one-sided Mann-Whitney U at {})</p>\n", gate->summary,
             gate->rules, gate->level);
  out.Raw(
      "<table class=\"sortable\"><tr><th>rule</th><th>verdict</th><th>BASE median ms</th>"
      "<th>NEW median ms</th><th>shift %</th><th>p</th><th>n BASE</th><th>n NEW</th>"
      "<th>why</th></tr>\n");
  for (const GateCheck& c : gate->checks) {
    out.Format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td></tr>\n",
        c.rule, analysis::GateVerdictKey(c.verdict), GateNumber(c.base_median_ms, "{:.3f}"),
        GateNumber(c.next_median_ms, "{:.3f}"), GateNumber(c.shift_pct, "{:+.2f}"),
        GateNumber(c.p_value, "{:.3g}"), c.n_base, c.n_next, c.reason);
  }
  out.Raw("</table></section>\n");
  return std::move(out).Finish();
}

}  // namespace trainscope::report
