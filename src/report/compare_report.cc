#include "report/compare_report.h"

#include <fmt/format.h>

#include <cmath>

#include "core/safe_text.h"
#include "model/kernel_names.h"
#include "report/compare_gate_report.h"
#include "report/compare_ops_report.h"
#include "report/json_writer.h"
#include "report/text_report.h"
#include "report/text_table.h"

namespace trainscope::report {
namespace {

using analysis::ComparedGroup;
using analysis::ComparedValue;
using analysis::RunComparison;

std::string Delta(const ComparedValue& v) {
  if (!v.delta()) return "n/a";
  std::string text = v.unit == "count" ? fmt::format("{:+d}", std::llround(*v.delta()))
                     : v.unit == "pct" ? fmt::format("{:+.1f} pts", *v.delta())
                                       : fmt::format("{:+.2f}", *v.delta());
  if (v.delta_pct() && v.unit != "pct") text += fmt::format(" ({:+.1f}%)", *v.delta_pct());
  return text;
}

std::string SideLine(const char* name, const analysis::SideInfo& s) {
  std::string inputs;
  for (const std::string& in : s.inputs) inputs += (inputs.empty() ? "" : ", ") + in;
  return fmt::format("  {:<4} {} ({} rank{}, {}; compared: rank {}, {}{})\n", name, inputs, s.ranks,
                     s.ranks == 1 ? "" : "s", model::PlatformKey(s.platform), s.compared_rank,
                     StepName(s.step),
                     s.budget_source.empty() ? "" : ", budget from " + s.budget_source);
}

void TextValues(const RunComparison& c, std::string* out) {
  *out += fmt::format("\n  {:<38} {:>16} {:>16} {:>22}\n", "", "BASE", "NEW", "delta");
  for (const ComparedValue& v : c.values) {
    *out += fmt::format("  {:<38} {:>16} {:>16} {:>22}\n", v.label,
                        FormatComparedValue(v.base, v.unit, true),
                        FormatComparedValue(v.next, v.unit, true), Delta(v));
  }
}

void TextGroups(const char* title, const std::vector<ComparedGroup>& groups, size_t rows,
                std::string* out) {
  if (groups.empty()) return;
  *out += fmt::format("\n  {:<40} {:>9} {:>9} {:>12} {:>12} {:>12}\n", title, "BASE n", "NEW n",
                      "BASE ms", "NEW ms", "delta ms");
  // Names shortened to their start and distinguishing tail, never two as one.
  std::vector<std::string> names;
  for (size_t i = 0; i < groups.size() && i < rows; ++i)
    names.push_back(TerminalSafe(groups[i].name));
  names = model::DistinctElidedNames(names, 40);
  for (size_t i = 0; i < groups.size() && i < rows; ++i) {
    const ComparedGroup& g = groups[i];
    std::string mark = g.base_count == 0 ? "  (new)" : g.next_count == 0 ? "  (gone)" : "";
    *out += fmt::format(
        "  {:<40} {:>9} {:>9} {:>12.3f} {:>12.3f} {:>+12.3f}{}\n", PadToColumns(names[i], 40),
        FormatCount(g.base_count), FormatCount(g.next_count), static_cast<double>(g.base_ns) / 1e6,
        static_cast<double>(g.next_ns) / 1e6, static_cast<double>(g.delta_ns()) / 1e6, mark);
  }
  if (groups.size() > rows) *out += fmt::format("  ... {} more\n", groups.size() - rows);
}

void TextFindings(const RunComparison& c, std::string* out) {
  if (c.findings.empty()) return;
  *out +=
      "\n  findings (chain instances per step on the worst rank; estimated gain, % of the "
      "step)\n";
  for (const analysis::ComparedFinding& f : c.findings) {
    const char* state = f.in_base && !f.in_next   ? "gone"
                        : !f.in_base && f.in_next ? "new"
                                                  : "still";
    const std::string instances = f.counts_instances
                                      ? fmt::format("{:>7} -> {:<7}", FormatCount(f.base_instances),
                                                    FormatCount(f.next_instances))
                                      : fmt::format("{:>7}    {:<7}", "", "");
    *out += fmt::format("  {:<6} {:<32} {} gain {:>5.1f}% -> {:>5.1f}%\n", state,
                        TerminalSafe(f.id), instances, f.base_gain_pct, f.next_gain_pct);
  }
  if (c.predictions.empty()) return;
  *out +=
      "\n  prediction check (BASE's estimated gain of each finding gone in NEW vs the measured "
      "step-time change)\n";
  for (const analysis::PredictionCheck& p : c.predictions) {
    *out += fmt::format("  {:<32} predicted {:>5.1f}%  measured {}  error {}\n", TerminalSafe(p.id),
                        p.predicted_gain_pct,
                        p.measured_gain_pct ? fmt::format("{:+.1f}%", *p.measured_gain_pct) : "n/a",
                        p.error_pct ? fmt::format("{:+.1f} pts", *p.error_pct) : "n/a");
  }
  if (c.combined_prediction) {
    const analysis::PredictionCheck& p = *c.combined_prediction;
    *out += fmt::format(
        "  {:<32} predicted {:>5.1f}%  measured {}  error {}\n  (several findings went at once: "
        "each alone is set against the same total change; the combined line applies the "
        "report's projection model to all of them)\n",
        "all of them, combined", p.predicted_gain_pct,
        p.measured_gain_pct ? fmt::format("{:+.1f}%", *p.measured_gain_pct) : "n/a",
        p.error_pct ? fmt::format("{:+.1f} pts", *p.error_pct) : "n/a");
  }
}

void JsonOptional(JsonWriter& w, const char* key, std::optional<double> v) {
  w.Key(key);
  if (v) {
    w.Double(*v, 6);
  } else {
    w.Null();
  }
}

void JsonCount(JsonWriter& w, bool known, int64_t value) {
  if (known) {
    w.Int(value);
  } else {
    w.Null();
  }
}

void JsonPrediction(JsonWriter& w, const analysis::PredictionCheck& p) {
  w.BeginObject();
  w.Field("id", p.id);
  w.Field("predicted_gain_pct", p.predicted_gain_pct);
  JsonOptional(w, "measured_gain_pct", p.measured_gain_pct);
  JsonOptional(w, "error_pct", p.error_pct);
  w.EndObject();
}

void JsonSide(JsonWriter& w, const char* key, const analysis::SideInfo& s) {
  w.Key(key).BeginObject();
  w.Key("inputs").BeginArray();
  for (const std::string& in : s.inputs) w.String(in);
  w.EndArray();
  w.Field("ranks", s.ranks);
  w.Field("platform", model::PlatformKey(s.platform));
  w.Key("compared_rank");
  if (s.compared_rank >= 0) {
    w.Int(s.compared_rank);
  } else {
    w.Null();
  }
  w.Key("step");
  if (s.step != model::kNoStep) {
    w.Int(s.step);
  } else {
    w.Null();
  }
  w.Field("step_reason", s.step_reason);
  w.Field("budget_source", s.budget_source);
  w.EndObject();
}

void JsonGroups(JsonWriter& w, const char* key, const std::vector<ComparedGroup>& groups) {
  w.Key(key).BeginArray();
  for (const ComparedGroup& g : groups) {
    w.BeginObject();
    w.Field("name", g.name);
    if (!g.family.empty()) w.Field("family", g.family);
    w.Key("base")
        .BeginObject()
        .Field("count", g.base_count)
        .Field("total_ns", g.base_ns)
        .EndObject();
    w.Key("new")
        .BeginObject()
        .Field("count", g.next_count)
        .Field("total_ns", g.next_ns)
        .EndObject();
    w.Key("delta")
        .BeginObject()
        .Field("count", g.next_count - g.base_count)
        .Field("total_ns", g.delta_ns())
        .EndObject();
    w.Field("state", g.base_count == 0 ? "new" : g.next_count == 0 ? "gone" : "both");
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

std::string FormatComparedValue(std::optional<double> value, const std::string& unit,
                                bool unit_suffix) {
  if (!value) return "n/a";
  if (unit == "count") return FormatCount(std::llround(*value));
  if (unit == "pct") return fmt::format("{:.1f}%", *value);
  if (unit == "steps/s")
    return unit_suffix ? fmt::format("{:.3f} steps/s", *value) : fmt::format("{:.3f}", *value);
  return unit_suffix ? fmt::format("{:.2f} {}", *value, DisplayUnit(unit))
                     : fmt::format("{:.3f}", *value);
}

std::string DisplayUnit(const std::string& unit) { return unit == "us" ? "µs" : unit; }

std::string RenderCompareText(const RunComparison& c, const CompareTextOptions& options) {
  std::string out = "trainscope compare\n";
  out += SideLine("BASE", c.base);
  out += SideLine("NEW", c.next);
  if (!c.cautions.empty()) out += "\n  cautions:\n";
  for (const std::string& caution : c.cautions)
    out += fmt::format("    - {}\n", TerminalSafe(caution));
  AppendWorkloadText(c.workload, &out);
  out += fmt::format("\n  verdict: {}\n", TerminalSafe(c.verdict));
  TextValues(c, &out);
  TextGroups("families", c.families, c.families.size(), &out);
  TextGroups("operators (by |delta|)", c.operators, options.operators, &out);
  RenderOpAlignmentText(c, options.framework_ops, &out);
  TextFindings(c, &out);
  if (c.gate) AppendGateText(*c.gate, &out);
  return out;
}

std::string RenderCompareJson(const RunComparison& c, const std::string& tool_version) {
  JsonWriter w;
  w.BeginObject();
  w.Field("schema", kCompareJsonSchema);
  w.Key("tool")
      .BeginObject()
      .Field("name", "trainscope")
      .Field("version", tool_version)
      .EndObject();
  JsonSide(w, "base", c.base);
  JsonSide(w, "new", c.next);
  w.Key("cautions").BeginArray();
  for (const std::string& caution : c.cautions) w.String(caution);
  w.EndArray();
  w.Field("verdict", c.verdict);
  JsonOptional(w, "step_change_pct", c.step_change_pct);
  WriteWorkloadJson(w, c.workload);
  WriteGateJson(w, c.gate);
  w.Key("values").BeginArray();
  for (const ComparedValue& v : c.values) {
    w.BeginObject();
    w.Field("id", v.id);
    w.Field("label", v.label);
    w.Field("unit", v.unit);
    JsonOptional(w, "base", v.base);
    JsonOptional(w, "new", v.next);
    JsonOptional(w, "delta", v.delta());
    JsonOptional(w, "delta_pct", v.delta_pct());
    w.EndObject();
  }
  w.EndArray();
  JsonGroups(w, "families", c.families);
  JsonGroups(w, "operators", c.operators);
  WriteOpAlignmentJson(w, c);
  w.Key("findings").BeginArray();
  for (const analysis::ComparedFinding& f : c.findings) {
    w.BeginObject();
    w.Field("id", f.id);
    w.Field("title", f.title);
    w.Field("state", f.in_base && !f.in_next ? "gone" : !f.in_base && f.in_next ? "new" : "both");
    w.Key("base").BeginObject().Field("present", f.in_base).Key("instances");
    JsonCount(w, f.counts_instances, f.base_instances);
    w.Field("ranks", f.base_ranks).Field("estimated_gain_pct", f.base_gain_pct).EndObject();
    w.Key("new").BeginObject().Field("present", f.in_next).Key("instances");
    JsonCount(w, f.counts_instances, f.next_instances);
    w.Field("ranks", f.next_ranks).Field("estimated_gain_pct", f.next_gain_pct).EndObject();
    w.EndObject();
  }
  w.EndArray();
  w.Key("predictions").BeginArray();
  for (const analysis::PredictionCheck& p : c.predictions) JsonPrediction(w, p);
  w.EndArray();
  w.Key("combined_prediction");
  if (c.combined_prediction) {
    JsonPrediction(w, *c.combined_prediction);
  } else {
    w.Null();
  }
  w.EndObject();
  return w.str() + "\n";
}

}  // namespace trainscope::report
