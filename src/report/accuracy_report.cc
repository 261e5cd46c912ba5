#include "report/accuracy_report.h"

#include <fmt/format.h>

#include <cmath>

#include "core/safe_text.h"
#include "report/json_writer.h"
#include "report/number_text.h"
#include "report/text_report.h"

namespace trainscope::report {
namespace {

using analysis::AccuracyComparison;
using analysis::DumpSide;
using analysis::PairState;
using analysis::TensorPair;

std::string Opt(const std::optional<double>& x, const char* format = "{:.6f}") {
  if (!x) return "n/a";
  if (!std::isfinite(*x)) return ThreeSignificant(*x);
  return fmt::format(fmt::runtime(format), *x);
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += fmt::format("{}{}", i ? ", " : "", shape[i]);
  return out + "]";
}

std::string SideText(const char* label, const DumpSide& s) {
  std::string what = s.kind;
  if (!s.task.empty()) what += ", task " + s.task;
  if (!s.level.empty()) what += ", level " + s.level;
  if (!s.selected.empty()) what += ", " + s.selected;
  return fmt::format("  {:<4} {} ({}; {} tensors, {} calls)\n", label, TerminalSafe(s.root),
                     TerminalSafe(what), FormatCount(s.tensors), FormatCount(s.ops));
}

std::string ModuleText(const std::string& module) { return module.empty() ? "n/a" : module; }

void TextVerdict(const AccuracyComparison& c, std::string* out) {
  if (!c.first_divergence) {
    *out += fmt::format("\n  verdict: no divergence: {} tensor pairs within the thresholds\n",
                        FormatCount(static_cast<int64_t>(c.pairs.size())));
    return;
  }
  const TensorPair& p = c.pairs[*c.first_divergence];
  *out += fmt::format("\n  verdict: first divergence at {} (module {})\n", TerminalSafe(p.op),
                      TerminalSafe(ModuleText(p.module)));
  *out += fmt::format("           tensor {} {} {}: {}\n", TerminalSafe(p.name), p.dtype,
                      ShapeText(p.shape), TerminalSafe(p.detail));
  *out += fmt::format("           {} of {} pairs diverge\n", FormatCount(c.diverged),
                      FormatCount(static_cast<int64_t>(c.pairs.size())));
}

void TextCounts(const AccuracyComparison& c, std::string* out) {
  *out +=
      fmt::format("\n  calls: {} matched, {} BASE only, {} NEW only", FormatCount(c.matched_ops),
                  FormatCount(c.base_only_ops), FormatCount(c.next_only_ops));
  *out += fmt::format("; tensor pairs: {}", FormatCount(static_cast<int64_t>(c.pairs.size())));
  std::string states;
  for (const auto& [state, n] : c.states)
    states += fmt::format("{}{} {}", states.empty() ? "" : ", ", FormatCount(n), state);
  if (!states.empty()) *out += " (" + states + ")";
  if (c.unpaired_base_tensors + c.unpaired_next_tensors > 0) {
    *out += fmt::format("; unpaired tensors: {} BASE, {} NEW", c.unpaired_base_tensors,
                        c.unpaired_next_tensors);
  }
  *out += "\n";
}

std::string OpList(const std::vector<std::string>& ops) {
  std::string text;
  const size_t shown = std::min<size_t>(ops.size(), 4);
  for (size_t i = 0; i < shown; ++i) text += (i ? ", " : "") + ops[i];
  if (ops.size() > shown) text += fmt::format(", ... {} more", ops.size() - shown);
  return text.empty() ? "-" : text;
}

void TextSpans(const AccuracyComparison& c, std::string* out) {
  if (c.spans.empty()) return;
  *out += fmt::format("\n  differing spans ({}: calls only one side made)\n", c.spans.size());
  for (size_t i = 0; i < c.spans.size() && i < 10; ++i) {
    const analysis::DifferingSpan& s = c.spans[i];
    *out += fmt::format("    after {} (module {}): BASE {} call(s) [{}] vs NEW {} call(s) [{}]\n",
                        TerminalSafe(s.after.empty() ? "the start" : s.after),
                        TerminalSafe(ModuleText(s.module)), s.base_ops.size(),
                        TerminalSafe(OpList(s.base_ops)), s.next_ops.size(),
                        TerminalSafe(OpList(s.next_ops)));
  }
  if (c.spans.size() > 10) *out += fmt::format("    ... {} more\n", c.spans.size() - 10);
}

void TextWorst(const AccuracyComparison& c, std::string* out) {
  if (c.worst.empty()) return;
  *out += fmt::format("\n  worst tensors\n    {:<52} {:<34} {:>10} {:>10} {:>10}  {}\n", "tensor",
                      "module", "cosine", "max abs", "rel err", "state");
  for (const size_t i : c.worst) {
    const TensorPair& p = c.pairs[i];
    const std::string cosine = p.metrics ? Opt(p.metrics->cosine) : "n/a";
    const std::string max_abs = p.metrics ? ThreeSignificant(p.metrics->max_abs) : "n/a";
    *out += fmt::format(
        "    {:<52} {:<34} {:>10} {:>10} {:>10}  {}{}\n", TerminalSafe(p.name.substr(0, 52)),
        TerminalSafe(ModuleText(p.module).substr(0, 34)), cosine, max_abs,
        ThreeSignificant(p.error), PairStateName(p.state), p.diverged ? ", DIVERGED" : "");
  }
}

void TextGrowth(const AccuracyComparison& c, size_t rows, std::string* out) {
  if (c.growth.empty()) return;
  *out +=
      "\n  error along the network (forward outputs; relative RMSE, or the largest relative "
      "statistic delta)\n";
  const size_t n = c.growth.size();
  const size_t shown = std::min(rows, n);
  for (size_t k = 0; k < shown; ++k) {
    const size_t idx = shown == 1 ? 0 : k * (n - 1) / (shown - 1);
    const analysis::GrowthPoint& g = c.growth[idx];
    *out +=
        fmt::format("    {:>5}  {:<60} {:>10}\n", idx + 1,
                    TerminalSafe(c.pairs[g.pair].name.substr(0, 60)), ThreeSignificant(g.error));
  }
}

void TextLedgers(const AccuracyComparison& c, std::string* out) {
  bool header = false;
  for (const DumpSide* side : {&c.base, &c.next}) {
    for (const RowLedger& l : side->ledgers) {
      if (l.rows_skipped() == 0 && l.notes_by_reason().empty()) continue;
      if (!header) *out += "\n  input health\n";
      header = true;
      std::string reasons;
      for (const auto& [reason, n] : l.skipped_by_reason())
        reasons += fmt::format("; skipped {} {}", n, reason);
      for (const auto& [reason, n] : l.notes_by_reason())
        reasons += fmt::format("; noted {} {}", n, reason);
      *out += fmt::format("    {}: read {}, used {}{}\n", TerminalSafe(l.file()), l.rows_read(),
                          l.rows_used(), TerminalSafe(reasons));
      for (const RowIssueSample& s : l.samples()) {
        *out += fmt::format("      {} #{}: {}\n", TerminalSafe(s.reason), s.line,
                            TerminalSafe(s.detail.substr(0, s.detail.find('\n'))));
      }
    }
  }
}

void TextLimits(const AccuracyComparison& c, std::string* out) {
  if (c.limits_used.empty()) return;
  *out +=
      "\n  thresholds (pass: cosine >= min and max abs error <= max; statistics: relative delta <= "
      "stat)\n";
  for (const auto& [dtype, l] : c.limits_used) {
    *out += fmt::format("    {:<9} cosine >= {}, max abs <= {}, stat <= {}  ({})\n", dtype,
                        l.min_cosine, l.max_abs, l.stat_rel, TerminalSafe(l.origin));
  }
}

void JsonSide(JsonWriter& j, const DumpSide& s) {
  j.BeginObject();
  j.Field("root", s.root).Field("kind", s.kind);
  for (auto [key, value] : {std::pair<const char*, const std::string*>{"task", &s.task},
                            {"level", &s.level},
                            {"framework", &s.framework},
                            {"selected", &s.selected}}) {
    j.Key(key);
    if (value->empty()) {
      j.Null();
    } else {
      j.String(*value);
    }
  }
  j.Field("tensors", s.tensors).Field("calls", s.ops);
  j.Key("inputs").BeginArray();
  for (const RowLedger& l : s.ledgers) {
    j.BeginObject().Field("file", l.file()).Field("rows_read", l.rows_read());
    j.Field("rows_used", l.rows_used()).Field("rows_skipped", l.rows_skipped());
    j.Key("skipped_by_reason").BeginObject();
    for (const auto& [reason, n] : l.skipped_by_reason()) j.Field(reason, n);
    j.EndObject().Key("notes_by_reason").BeginObject();
    for (const auto& [reason, n] : l.notes_by_reason()) j.Field(reason, n);
    j.EndObject().EndObject();
  }
  j.EndArray().EndObject();
}

void JsonOptDouble(JsonWriter& j, std::string_view key, const std::optional<double>& v,
                   int decimals) {
  j.Key(key);
  if (v) {
    j.Double(*v, decimals);
  } else {
    j.Null();
  }
}

void JsonPair(JsonWriter& j, const TensorPair& p) {
  j.BeginObject();
  j.Field("name", p.name).Field("next_name", p.next_name).Field("call", p.op);
  j.Key("module");
  if (p.module.empty()) {
    j.Null();
  } else {
    j.String(p.module);
  }
  j.Field("role", p.role).Field("dtype", p.dtype).Field("next_dtype", p.next_dtype);
  j.Key("shape").BeginArray();
  for (const int64_t d : p.shape) j.Int(d);
  j.EndArray();
  j.Field("base_order", p.base_order).Field("next_order", p.next_order);
  j.Field("state", PairStateName(p.state)).Field("diverged", p.diverged).Field("detail", p.detail);
  j.Key("error").Double(p.error, 9);
  j.Key("metrics");
  if (p.metrics) {
    const analysis::TensorMetrics& m = *p.metrics;
    j.BeginObject().Field("elements", m.elements);
    JsonOptDouble(j, "cosine", m.cosine, 9);
    j.Key("max_abs").Double(m.max_abs, 9).Key("max_rel").Double(m.max_rel, 9);
    j.Key("rmse").Double(m.rmse, 9).Key("base_rms").Double(m.base_rms, 9);
    j.Field("beyond_tolerance", m.beyond);
    j.Key("beyond_share")
        .Double(m.elements ? static_cast<double>(m.beyond) / static_cast<double>(m.elements) : 0,
                6);
    j.Field("nan_base", m.nan_base).Field("nan_next", m.nan_next);
    j.Field("inf_base", m.inf_base).Field("inf_next", m.inf_next);
    j.Field("nonfinite_mismatch", m.nonfinite_mismatch).EndObject();
  } else {
    j.Null();
  }
  j.Key("statistics").BeginObject();
  for (auto [key, d] : {std::pair<const char*, const analysis::StatDelta*>{"max", &p.max},
                        {"min", &p.min},
                        {"mean", &p.mean},
                        {"norm", &p.norm}}) {
    j.Key(key).BeginObject();
    JsonOptDouble(j, "base", d->base, 9);
    JsonOptDouble(j, "next", d->next, 9);
    JsonOptDouble(j, "rel_delta", d->rel(), 9);
    j.EndObject();
  }
  j.EndObject();
  j.Key("limits").BeginObject().Key("min_cosine").Double(p.limits.min_cosine, 9);
  j.Key("max_abs").Double(p.limits.max_abs, 9).Key("stat_rel").Double(p.limits.stat_rel, 9);
  j.EndObject().EndObject();
}

}  // namespace

std::string RenderAccuracyText(const AccuracyComparison& c, const AccuracyTextOptions& options) {
  std::string out = "trainscope accuracy\n";
  out += SideText("BASE", c.base);
  out += SideText("NEW", c.next);
  TextVerdict(c, &out);
  TextCounts(c, &out);
  TextSpans(c, &out);
  TextWorst(c, &out);
  TextGrowth(c, options.growth_rows, &out);
  TextLimits(c, &out);
  TextLedgers(c, &out);
  return out;
}

std::string RenderAccuracyJson(const AccuracyComparison& c, std::string_view version) {
  JsonWriter j;
  j.BeginObject().Field("schema", kAccuracyJsonSchema).Field("tool_version", version);
  j.Key("base");
  JsonSide(j, c.base);
  j.Key("new");
  JsonSide(j, c.next);
  j.Key("first_divergence");
  if (c.first_divergence) {
    JsonPair(j, c.pairs[*c.first_divergence]);
  } else {
    j.Null();
  }
  j.Field("diverged_pairs", c.diverged);
  j.Key("calls").BeginObject().Field("matched", c.matched_ops).Field("base_only", c.base_only_ops);
  j.Field("new_only", c.next_only_ops).EndObject();
  j.Field("unpaired_base_tensors", c.unpaired_base_tensors);
  j.Field("unpaired_new_tensors", c.unpaired_next_tensors);
  j.Key("pair_states").BeginObject();
  for (const auto& [state, n] : c.states) j.Field(state, n);
  j.EndObject();
  j.Key("spans").BeginArray();
  for (const analysis::DifferingSpan& s : c.spans) {
    j.BeginObject().Field("after", s.after).Field("module", s.module);
    j.Field("base_order", s.base_order);
    j.Key("base_calls").BeginArray();
    for (const std::string& op : s.base_ops) j.String(op);
    j.EndArray().Key("new_calls").BeginArray();
    for (const std::string& op : s.next_ops) j.String(op);
    j.EndArray().EndObject();
  }
  j.EndArray();
  j.Key("growth").BeginArray();
  for (const analysis::GrowthPoint& g : c.growth) {
    j.BeginObject().Field("pair", static_cast<int64_t>(g.pair)).Field("name", c.pairs[g.pair].name);
    j.Key("error").Double(g.error, 9);
    JsonOptDouble(j, "max_abs", g.max_abs, 9);
    j.EndObject();
  }
  j.EndArray();
  j.Key("worst").BeginArray();
  for (const size_t i : c.worst) j.Int(static_cast<int64_t>(i));
  j.EndArray();
  j.Key("thresholds").BeginObject();
  for (const auto& [dtype, l] : c.limits_used) {
    j.Key(dtype).BeginObject().Key("min_cosine").Double(l.min_cosine, 9);
    j.Key("max_abs").Double(l.max_abs, 9).Key("stat_rel").Double(l.stat_rel, 9);
    j.Field("origin", l.origin).EndObject();
  }
  j.EndObject();
  j.Key("pairs").BeginArray();
  for (const TensorPair& p : c.pairs) JsonPair(j, p);
  j.EndArray().EndObject();
  return j.str() + "\n";
}

std::string RenderLossText(const analysis::LossComparison& c) {
  std::string out = "trainscope accuracy --loss\n";
  out += fmt::format("  BASE {} ({} points)\n  NEW  {} ({} points)\n", TerminalSafe(c.base_label),
                     c.base_points, TerminalSafe(c.next_label), c.next_points);
  out += fmt::format(
      "  common steps: {}; tolerance: relative difference > {} for {} step(s) in a row\n",
      c.common_steps, c.tolerance, c.sustain);
  if (c.separation_step) {
    out += fmt::format("\n  verdict: the curves separate at step {} (relative difference {})\n",
                       *c.separation_step, ThreeSignificant(*c.separation_rel));
  } else {
    out += "\n  verdict: the curves overlap within the tolerance\n";
  }
  out += fmt::format("  largest relative difference: {}{}\n", ThreeSignificant(c.max_rel),
                     c.max_rel_step ? fmt::format(" at step {}", *c.max_rel_step) : "");
  return out;
}

std::string RenderLossJson(const analysis::LossComparison& c, std::string_view version) {
  JsonWriter j;
  j.BeginObject().Field("schema", kAccuracyJsonSchema).Field("tool_version", version);
  j.Key("loss").BeginObject();
  j.Field("base", c.base_label).Field("new", c.next_label);
  j.Field("base_points", c.base_points).Field("new_points", c.next_points);
  j.Field("common_steps", c.common_steps);
  j.Key("tolerance").Double(c.tolerance, 6).Field("sustain_steps", c.sustain);
  j.Key("separation_step");
  if (c.separation_step) {
    j.Int(*c.separation_step);
  } else {
    j.Null();
  }
  JsonOptDouble(j, "separation_rel", c.separation_rel, 6);
  j.Key("max_rel").Double(c.max_rel, 6);
  j.Key("max_rel_step");
  if (c.max_rel_step) {
    j.Int(*c.max_rel_step);
  } else {
    j.Null();
  }
  j.EndObject().EndObject();
  return j.str() + "\n";
}

}  // namespace trainscope::report
