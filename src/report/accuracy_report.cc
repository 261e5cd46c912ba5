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
  std::string out =
      fmt::format("  {:<4} {} ({}; {} tensors, {} calls)\n", label, TerminalSafe(s.root),
                  TerminalSafe(what), FormatCount(s.tensors), FormatCount(s.ops));
  if (!s.other_ranks.empty()) {
    std::string others;
    for (size_t i = 0; i < s.other_ranks.size() && i < 8; ++i) {
      others += (i ? ", " : "") + s.other_ranks[i];
    }
    if (s.other_ranks.size() > 8) others += fmt::format(", ... {} more", s.other_ranks.size() - 8);
    out += fmt::format("       not read: {} (--rank N picks one)\n", TerminalSafe(others));
  }
  return out;
}

std::string ModuleText(const std::string& module) { return module.empty() ? "n/a" : module; }

// |text| cut to |width| characters keeping its distinguishing tail
// ("Functional.linear.3.forward.input.0" vs "....output.0"): the head, "...",
// and the last part.
std::string ElideMiddle(const std::string& text, size_t width) {
  if (text.size() <= width || width < 12) return text.substr(0, width);
  const size_t tail = (width - 3) * 3 / 5;
  const size_t head = width - 3 - tail;
  return text.substr(0, head) + "..." + text.substr(text.size() - tail);
}

void TextVerdict(const AccuracyComparison& c, std::string* out) {
  if (c.verdict == analysis::Verdict::kCannotConclude) {
    *out += fmt::format("\n  verdict: cannot conclude: {}\n", TerminalSafe(c.verdict_reason));
    return;
  }
  if (c.verdict == analysis::Verdict::kNoDivergence) {
    *out += fmt::format("\n  verdict: no divergence: {} tensor pairs within the thresholds\n",
                        FormatCount(static_cast<int64_t>(c.pairs.size())));
    *out += fmt::format("  coverage: {}\n", TerminalSafe(c.verdict_reason));
    return;
  }
  const TensorPair& p = c.pairs[*c.first_divergence];
  *out += fmt::format("\n  verdict: first divergence at {} (module {})\n", TerminalSafe(p.op()),
                      TerminalSafe(ModuleText(p.module())));
  *out += fmt::format("           tensor {} {} {}: {}\n", TerminalSafe(p.name()), p.dtype(),
                      ShapeText(p.shape()), TerminalSafe(p.detail));
  if (p.name() != p.next_name()) {
    *out += fmt::format("           paired with NEW's {} ({})\n", TerminalSafe(p.next_name()),
                        TerminalSafe(p.match_rule));
  }
  *out += fmt::format("           {} of {} pairs diverge\n", FormatCount(c.diverged),
                      FormatCount(static_cast<int64_t>(c.pairs.size())));
  *out += fmt::format("  coverage: {}\n", TerminalSafe(c.verdict_reason));
}

std::string JoinedNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

void TextRanks(const AccuracyComparison& c, std::string* out) {
  if (c.ranks.empty()) return;
  std::vector<std::string> paired;
  for (const analysis::RankSummary& r : c.ranks) paired.push_back(r.rank);
  *out +=
      fmt::format("\n  ranks compared rank by rank: {} paired; BASE only: {}; NEW only: {}\n",
                  TerminalSafe(JoinedNames(paired)), TerminalSafe(JoinedNames(c.base_only_ranks)),
                  TerminalSafe(JoinedNames(c.next_only_ranks)));
  for (const analysis::RankSummary& r : c.ranks) {
    if (r.verdict == analysis::Verdict::kDivergence) {
      *out += fmt::format(
          "    {}: first divergence at {} (tensor {}: {}); {} of {} pairs diverge\n",
          TerminalSafe(r.rank), TerminalSafe(r.first_call), TerminalSafe(r.first_tensor),
          TerminalSafe(r.first_detail), FormatCount(r.diverged), FormatCount(r.pairs));
    } else {
      *out += fmt::format("    {}: {}: {}\n", TerminalSafe(r.rank),
                          analysis::VerdictName(r.verdict), TerminalSafe(r.verdict_reason));
    }
  }
  *out += fmt::format("  shown below: {}\n", TerminalSafe(c.rank_shown));
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
  if (!c.match_rules.empty()) {
    std::string rules;
    for (const auto& [rule, n] : c.match_rules) {
      rules += fmt::format("{}{} {}", rules.empty() ? "" : ", ", FormatCount(n), rule);
    }
    *out += fmt::format("\n  calls paired by: {}{}", TerminalSafe(rules),
                        c.cross_framework ? " (frameworks differ: API names mapped)" : "");
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
        "    {:<52} {:<34} {:>10} {:>10} {:>10}  {}{}\n", TerminalSafe(ElideMiddle(p.name(), 52)),
        TerminalSafe(ElideMiddle(ModuleText(p.module()), 34)), cosine, max_abs,
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
    *out += fmt::format("    {:>5}  {:<60} {:>10}\n", idx + 1,
                        TerminalSafe(ElideMiddle(c.pairs[g.pair].name(), 60)),
                        ThreeSignificant(g.error));
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
  j.Key("other_ranks").BeginArray();
  for (const std::string& r : s.other_ranks) j.String(r);
  j.EndArray();
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
  j.Field("name", p.name()).Field("next_name", p.next_name()).Field("call", p.op());
  j.Key("module");
  if (p.module().empty()) {
    j.Null();
  } else {
    j.String(p.module());
  }
  j.Field("role", p.role()).Field("match_rule", p.match_rule);
  j.Field("dtype", p.dtype()).Field("next_dtype", p.next_dtype());
  j.Key("shape").BeginArray();
  for (const int64_t d : p.shape()) j.Int(d);
  j.EndArray();
  j.Field("base_order", p.base_order()).Field("next_order", p.next_order());
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
    j.Field("nonfinite_mismatch", m.nonfinite_mismatch);
    j.Key("euclidean").Double(m.euclidean, 9);
    j.Field("rel_below_1e3", m.rel_below_1e3).Field("rel_below_5e3", m.rel_below_5e3).EndObject();
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
  TextRanks(c, &out);
  TextVerdict(c, &out);
  TextCounts(c, &out);
  TextSpans(c, &out);
  TextWorst(c, &out);
  TextGrowth(c, options.growth_rows, &out);
  TextLimits(c, &out);
  TextLedgers(c, &out);
  return out;
}

namespace {

void WriteAccuracyDocument(JsonWriter& j, const AccuracyComparison& c, std::string_view version) {
  j.BeginObject().Field("schema", kAccuracyJsonSchema).Field("tool_version", version);
  j.Key("base");
  JsonSide(j, c.base);
  j.Key("new");
  JsonSide(j, c.next);
  j.Field("verdict", analysis::VerdictName(c.verdict)).Field("verdict_reason", c.verdict_reason);
  j.Key("rank_shown");
  if (c.rank_shown.empty()) {
    j.Null();
  } else {
    j.String(c.rank_shown);
  }
  j.Key("ranks").BeginArray();
  for (const analysis::RankSummary& r : c.ranks) {
    j.BeginObject().Field("rank", r.rank).Field("verdict", analysis::VerdictName(r.verdict));
    j.Field("verdict_reason", r.verdict_reason);
    j.Field("first_call", r.first_call).Field("first_tensor", r.first_tensor);
    j.Field("first_detail", r.first_detail).Field("diverged_pairs", r.diverged);
    j.Field("pairs", r.pairs).EndObject();
  }
  j.EndArray();
  for (const auto& [key, names] : {std::pair<const char*, const std::vector<std::string>*>{
                                       "base_only_ranks", &c.base_only_ranks},
                                   {"new_only_ranks", &c.next_only_ranks}}) {
    j.Key(key).BeginArray();
    for (const std::string& n : *names) j.String(n);
    j.EndArray();
  }
  const analysis::Coverage& v = c.coverage;
  j.Key("coverage").BeginObject();
  j.Field("base_calls", v.base_calls).Field("new_calls", v.next_calls);
  j.Field("paired_calls", v.paired_calls).Field("base_tensors", v.base_tensors);
  j.Field("new_tensors", v.next_tensors).Field("paired_tensors", v.paired_tensors);
  j.Field("judged_tensors", v.judged_tensors);
  j.Key("call_share").Double(v.call_share(), 6).Key("tensor_share").Double(v.tensor_share(), 6);
  j.Key("floor").Double(analysis::kCoverageFloor, 6).Field("enough", v.enough());
  j.EndObject();
  j.Key("first_divergence");
  if (c.first_divergence) {
    JsonPair(j, c.pairs[*c.first_divergence]);
  } else {
    j.Null();
  }
  j.Field("diverged_pairs", c.diverged);
  j.Key("calls").BeginObject().Field("matched", c.matched_ops).Field("base_only", c.base_only_ops);
  j.Field("new_only", c.next_only_ops).Field("cross_framework", c.cross_framework);
  j.Key("by_rule").BeginObject();
  for (const auto& [rule, n] : c.match_rules) j.Field(rule, n);
  j.EndObject().EndObject();
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
    j.BeginObject()
        .Field("pair", static_cast<int64_t>(g.pair))
        .Field("name", c.pairs[g.pair].name());
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
}

}  // namespace

std::string RenderAccuracyJson(const AccuracyComparison& c, std::string_view version) {
  std::string out;
  StreamAccuracyJson(c, version, [&out](std::string_view chunk) { out.append(chunk); });
  return out;
}

void StreamAccuracyJson(const AccuracyComparison& c, std::string_view version,
                        const AccuracySink& sink) {
  JsonWriter j;
  j.StreamTo(sink);
  WriteAccuracyDocument(j, c, version);
  j.Flush();
  sink("\n");
}

namespace {

// One CSV text cell: quoted when it holds a comma, quote or line break; a
// cell starting with = + - @ (or a tab / CR) gets a leading ' so a
// spreadsheet shows it instead of running it as a formula (OWASP).
void AppendAccuracyCsvText(std::string* out, std::string_view text) {
  std::string cell;
  if (!text.empty() && (text[0] == '=' || text[0] == '+' || text[0] == '-' || text[0] == '@' ||
                        text[0] == '\t' || text[0] == '\r')) {
    cell += '\'';
  }
  cell += text;
  if (cell.find_first_of(",\"\r\n") == std::string::npos) {
    *out += cell;
    return;
  }
  *out += '"';
  for (const char ch : cell) {
    if (ch == '"') *out += '"';
    *out += ch;
  }
  *out += '"';
}

std::string CsvNumber(const std::optional<double>& v) {
  if (!v) return "N/A";
  if (std::isnan(*v)) return "nan";
  if (std::isinf(*v)) return *v > 0 ? "inf" : "-inf";
  return fmt::format("{:.9g}", *v);
}

std::optional<double> StatDiff(const analysis::StatDelta& d) {
  if (!d.base || !d.next) return std::nullopt;
  return *d.next - *d.base;
}

std::string CsvShape(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += fmt::format("{}{}", i ? ", " : "", shape[i]);
  return out + "]";
}

}  // namespace

std::string RenderAccuracyCsv(const AccuracyComparison& c) {
  std::string out;
  StreamAccuracyCsv(c, [&out](std::string_view chunk) { out.append(chunk); });
  return out;
}

void StreamAccuracyCsv(const AccuracyComparison& c, const AccuracySink& sink) {
  std::string out =
      "NPU Name,Bench Name,NPU Dtype,Bench Dtype,NPU Tensor Shape,Bench Tensor Shape,Cosine,"
      "EucDist,MaxAbsErr,MaxRelativeErr,One Thousandth Err Ratio,Five Thousandth Err Ratio,"
      "Max diff,Min diff,Mean diff,L2norm diff,NPU max,NPU min,NPU mean,NPU l2norm,Bench max,"
      "Bench min,Bench mean,Bench l2norm,Accuracy Reached or Not,Err_message,State\n";
  for (const TensorPair& p : c.pairs) {
    for (const std::string* text : {&p.next_name(), &p.name(), &p.next_dtype(), &p.dtype()}) {
      AppendAccuracyCsvText(&out, *text);
      out += ',';
    }
    AppendAccuracyCsvText(&out, CsvShape(p.next_shape()));
    out += ',';
    AppendAccuracyCsvText(&out, CsvShape(p.shape()));
    std::optional<double> cosine, euclid, max_abs, max_rel, one, five;
    if (p.metrics) {
      const analysis::TensorMetrics& m = *p.metrics;
      cosine = m.cosine;
      euclid = m.euclidean;
      max_abs = m.max_abs;
      max_rel = m.max_rel;
      if (m.finite_pairs > 0) {
        one = static_cast<double>(m.rel_below_1e3) / static_cast<double>(m.finite_pairs);
        five = static_cast<double>(m.rel_below_5e3) / static_cast<double>(m.finite_pairs);
      }
    }
    for (const std::optional<double>& v :
         {cosine, euclid, max_abs, max_rel, one, five, StatDiff(p.max), StatDiff(p.min),
          StatDiff(p.mean), StatDiff(p.norm), p.max.next, p.min.next, p.mean.next, p.norm.next,
          p.max.base, p.min.base, p.mean.base, p.norm.base}) {
      out += ',' + CsvNumber(v);
    }
    const bool judged = p.state != PairState::kUnreadable && p.state != PairState::kNothing;
    out += judged ? (p.diverged ? ",No," : ",Yes,") : ",N/A,";
    AppendAccuracyCsvText(&out, p.detail);
    out += ',';
    AppendAccuracyCsvText(&out, analysis::PairStateName(p.state));
    out += '\n';
    if (out.size() >= JsonWriter::kChunkBytes) {
      sink(out);
      out.clear();
    }
  }
  if (!out.empty()) sink(out);
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
