#include "analysis/accuracy/accuracy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <deque>
#include <limits>
#include <memory>
#include <unordered_map>
#include <utility>

#include "analysis/accuracy/op_alignment.h"
#include "core/parallel.h"

namespace trainscope::analysis {
namespace {

using model::DumpTensor;
using model::TensorDump;

constexpr double kInf = std::numeric_limits<double>::infinity();

struct OpGroup {
  std::string op;
  std::vector<size_t> tensors;
};

std::vector<OpGroup> GroupByOp(const TensorDump& dump) {
  std::vector<OpGroup> ops;
  for (size_t i = 0; i < dump.tensors.size(); ++i) {
    const DumpTensor& t = dump.tensors[i];
    if (ops.empty() || ops.back().op != t.op) ops.push_back({t.op, {}});
    ops.back().tensors.push_back(i);
  }
  return ops;
}

std::string Suffix(const DumpTensor& t) {
  if (t.name.size() > t.op.size() && t.name.starts_with(t.op)) return t.name.substr(t.op.size());
  return t.name == t.op ? std::string() : t.name;
}

DumpSide Side(const TensorDump& dump, size_t ops) {
  DumpSide side;
  side.root = dump.root;
  side.kind = dump.kind;
  side.task = dump.task;
  side.level = dump.level;
  side.framework = dump.framework;
  side.selected = dump.selected;
  side.other_ranks = dump.other_ranks;
  side.tensors = static_cast<int64_t>(dump.tensors.size());
  side.ops = static_cast<int64_t>(ops);
  side.ledgers = dump.ledgers;
  return side;
}

int64_t ElementCount(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (const int64_t d : shape) n *= d;
  return n;
}

std::string AsciiLowerName(std::string_view text) {
  std::string out(text);
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

bool NonFinite(const std::optional<double>& v) { return v && !std::isfinite(*v); }

void CompareStatistics(const DumpTensor& a, const DumpTensor& b, TensorPair* p) {
  p->max = {a.stats.max, b.stats.max};
  p->min = {a.stats.min, b.stats.min};
  p->mean = {a.stats.mean, b.stats.mean};
  p->norm = {a.stats.norm, b.stats.norm};
  if (!a.stats.any() || !b.stats.any()) {
    p->state = PairState::kNothing;
    p->detail = "neither elements nor statistics on both sides";
    return;
  }
  p->state = PairState::kStatistics;
  double worst = 0;
  std::string which;
  for (auto [label, delta] : {std::pair<const char*, const StatDelta*>{"Norm", &p->norm},
                              {"Max", &p->max},
                              {"Min", &p->min}}) {
    const bool nf_a = NonFinite(delta->base), nf_b = NonFinite(delta->next);
    if (nf_a != nf_b || (nf_a && std::isnan(*delta->base) != std::isnan(*delta->next))) {
      p->stats_nonfinite = true;
      worst = kInf;
      which = fmt::format("{} is {} in BASE, {} in NEW", label, *delta->base, *delta->next);
      break;
    }
    if (const std::optional<double> rel = delta->rel(); rel && *rel > worst) {
      worst = *rel;
      which = label;
    }
  }
  p->error = worst;
  if (p->stats_nonfinite) {
    p->diverged = true;
    p->detail = which;
  } else if (worst > p->limits.stat_rel) {
    p->diverged = true;
    p->detail =
        fmt::format("{} differs by {:.3g} relative > {:.3g}", which, worst, p->limits.stat_rel);
  }
}

void JudgeElements(TensorPair* p) {
  const TensorMetrics& m = *p->metrics;
  p->error = m.base_rms > 0 ? m.rmse / m.base_rms : m.rmse;
  if (m.nonfinite_mismatch > 0 || m.nan_base != m.nan_next || m.inf_base != m.inf_next) {
    p->diverged = true;
    p->error = kInf;
    p->detail = fmt::format("NaN/Inf differ: BASE {} NaN {} Inf, NEW {} NaN {} Inf", m.nan_base,
                            m.inf_base, m.nan_next, m.inf_next);
    return;
  }
  if (m.cosine && *m.cosine < p->limits.min_cosine) {
    p->diverged = true;
    p->detail = fmt::format("cosine {:.6f} < {}", *m.cosine, p->limits.min_cosine);
  } else if (m.max_abs > p->limits.max_abs) {
    p->diverged = true;
    p->detail = fmt::format("max abs error {:.3g} > {:.3g}", m.max_abs, p->limits.max_abs);
  }
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += fmt::format("{}{}", i ? ", " : "", shape[i]);
  return out + "]";
}

// "torch.float32" and "Float32" are one type; int32 vs int64 or float vs int
// are not. Two float widths (float32 vs bfloat16) compare at the looser row,
// as msprobe compare allows.
bool DtypesDiffer(const DumpTensor& a, const DumpTensor& b) {
  if (a.type != model::ElementType::kUnknown && b.type != model::ElementType::kUnknown) {
    return a.type != b.type && !(model::IsFloating(a.type) && model::IsFloating(b.type));
  }
  auto plain = [](std::string_view dtype) {
    if (const size_t dot = dtype.rfind('.'); dot != std::string_view::npos) {
      dtype.remove_prefix(dot + 1);
    }
    std::string out(dtype);
    for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return out;
  };
  return plain(a.dtype) != plain(b.dtype);
}

void ComparePair(const DumpTensor& a, const DumpTensor& b, TensorPair* p) {
  if (a.shape != b.shape) {
    p->state = PairState::kShapeMismatch;
    p->diverged = true;
    p->error = kInf;
    p->detail =
        fmt::format("shape {} in BASE, {} in NEW", ShapeString(a.shape), ShapeString(b.shape));
    return;
  }
  if (DtypesDiffer(a, b)) {
    p->state = PairState::kDtypeMismatch;
    p->diverged = true;
    p->error = kInf;
    p->detail = fmt::format("dtype {} in BASE, {} in NEW", a.dtype, b.dtype);
    return;
  }
  const bool layouts_agree =
      !a.data || !b.data || a.data->fortran_order == b.data->fortran_order || a.shape.size() <= 1;
  if (a.data && b.data && a.shape == b.shape && layouts_agree) {
    Result<TensorMetrics> metrics =
        CompareTensorData(*a.data, *b.data, ElementCount(a.shape), p->limits.max_abs);
    if (metrics.ok()) {
      p->state = PairState::kCompared;
      p->metrics = std::make_shared<const TensorMetrics>(*metrics);
      JudgeElements(p);
      return;
    }
    p->detail = metrics.status().message();
  } else if (a.data && b.data && !layouts_agree) {
    p->detail = "one side is C order, the other Fortran order";
  }
  const std::string why = p->detail;
  CompareStatistics(a, b, p);
  if (p->state == PairState::kNothing && !why.empty()) {
    p->state = PairState::kUnreadable;
    p->detail = why;
  }
}

// The k-th tensor of a name in BASE's call pairs with the k-th of that name in NEW's.
void PairTensors(const TensorDump& base, const OpGroup& gb, const TensorDump& next,
                 const OpGroup& gn, std::vector<std::pair<size_t, size_t>>* pairs,
                 AccuracyComparison* c) {
  std::unordered_map<std::string, std::deque<size_t>> by_suffix;
  for (const size_t j : gn.tensors) by_suffix[Suffix(next.tensors[j])].push_back(j);
  for (const size_t i : gb.tensors) {
    auto it = by_suffix.find(Suffix(base.tensors[i]));
    if (it == by_suffix.end() || it->second.empty()) {
      ++c->unpaired_base_tensors;
      continue;
    }
    pairs->emplace_back(i, it->second.front());
    it->second.pop_front();
  }
  for (const auto& [suffix, left] : by_suffix) {
    c->unpaired_next_tensors += static_cast<int64_t>(left.size());
  }
}

void FillSummary(AccuracyComparison* c, const AccuracyOptions& options) {
  for (size_t i = 0; i < c->pairs.size(); ++i) {
    const TensorPair& p = c->pairs[i];
    c->states[std::string(PairStateName(p.state))]++;
    if (p.diverged) {
      ++c->diverged;
      if (!c->first_divergence) c->first_divergence = i;
    }
    if ((p.state == PairState::kCompared || p.state == PairState::kStatistics) &&
        (p.role() == "output" || p.role() == "tensor") &&
        p.op().find(".backward") == std::string::npos) {
      GrowthPoint g;
      g.pair = i;
      g.error = p.error;
      if (p.metrics) g.max_abs = p.metrics->max_abs;
      c->growth.push_back(g);
    }
  }
  std::vector<size_t> order;
  for (size_t i = 0; i < c->pairs.size(); ++i) {
    const TensorPair& p = c->pairs[i];
    if (p.state != PairState::kUnreadable && p.state != PairState::kNothing) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    const TensorPair& a = c->pairs[x];
    const TensorPair& b = c->pairs[y];
    if (a.diverged != b.diverged) return a.diverged;
    return a.error > b.error;
  });
  if (order.size() > options.worst_rows) order.resize(options.worst_rows);
  c->worst = std::move(order);
}

void MatchKeysOfCalls(const std::vector<OpGroup>& ops, bool cross_framework,
                      const ApiNameTable& table, const AccuracyMapping* mapping,
                      std::vector<std::string>* keys, std::vector<std::string>* rules) {
  for (const OpGroup& g : ops) {
    CallKey k = MatchKeyOfCall(g.op, cross_framework, table, mapping);
    keys->push_back(std::move(k.key));
    rules->push_back(std::move(k.rule));
  }
}

// How two matched calls were paired: NEW's mapping rule, else BASE's, else
// their names.
std::string MatchRuleOf(const std::string& next_rule, const std::string& base_rule,
                        const OpGroup& gb, const OpGroup& gn) {
  if (!next_rule.empty()) return next_rule;
  if (!base_rule.empty()) return base_rule;
  return gb.op == gn.op ? "same name" : "call counter";
}

bool Judged(PairState state) {
  return state != PairState::kUnreadable && state != PairState::kNothing;
}

void FillCoverageAndVerdict(AccuracyComparison* c) {
  Coverage& v = c->coverage;
  v.base_calls = c->base.ops;
  v.next_calls = c->next.ops;
  v.paired_calls = c->matched_ops;
  v.base_tensors = c->base.tensors;
  v.next_tensors = c->next.tensors;
  v.paired_tensors = static_cast<int64_t>(c->pairs.size());
  for (const TensorPair& p : c->pairs) v.judged_tensors += Judged(p.state) ? 1 : 0;
  const std::string calls = fmt::format(
      "{} of {} BASE calls and {} of {} NEW calls paired; {} of {} BASE tensors and {} of {} "
      "NEW tensors judged",
      v.paired_calls, v.base_calls, v.paired_calls, v.next_calls, v.judged_tensors, v.base_tensors,
      v.judged_tensors, v.next_tensors);
  if (c->first_divergence) {
    c->verdict = Verdict::kDivergence;
    c->verdict_reason = v.enough() ? calls
                                   : calls + fmt::format(
                                                 "; below the {:.0f}% floor: an earlier "
                                                 "divergence may sit in what was not judged",
                                                 kCoverageFloor * 100);
    return;
  }
  if (v.judged_tensors == 0) {
    c->verdict = Verdict::kCannotConclude;
    c->verdict_reason = "no tensor pair could be judged: " + calls;
    return;
  }
  if (!v.enough()) {
    c->verdict = Verdict::kCannotConclude;
    c->verdict_reason = fmt::format("only {}; \"no divergence\" needs {:.0f}% of each side", calls,
                                    kCoverageFloor * 100);
    return;
  }
  c->verdict = Verdict::kNoDivergence;
  c->verdict_reason = calls;
}

}  // namespace

std::string_view PairStateName(PairState state) {
  switch (state) {
    case PairState::kCompared:
      return "compared";
    case PairState::kStatistics:
      return "statistics";
    case PairState::kShapeMismatch:
      return "shape mismatch";
    case PairState::kDtypeMismatch:
      return "dtype mismatch";
    case PairState::kUnreadable:
      return "unreadable";
    case PairState::kNothing:
      return "nothing to compare";
  }
  return "?";
}

std::string_view VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kDivergence:
      return "divergence";
    case Verdict::kNoDivergence:
      return "no divergence";
    case Verdict::kCannotConclude:
      return "cannot conclude";
  }
  return "?";
}

double Coverage::call_share() const {
  if (base_calls == 0 || next_calls == 0) return 0;
  return std::min(static_cast<double>(paired_calls) / static_cast<double>(base_calls),
                  static_cast<double>(paired_calls) / static_cast<double>(next_calls));
}

double Coverage::tensor_share() const {
  if (base_tensors == 0 || next_tensors == 0) return 0;
  return std::min(static_cast<double>(judged_tensors) / static_cast<double>(base_tensors),
                  static_cast<double>(judged_tensors) / static_cast<double>(next_tensors));
}

std::optional<double> StatDelta::rel() const {
  if (!base || !next) return std::nullopt;
  if (!std::isfinite(*base) || !std::isfinite(*next)) return std::nullopt;
  return std::fabs(*next - *base) / std::max(std::fabs(*base), kRelativeFloor);
}

AccuracyComparison CompareDumps(const TensorDump& base, const TensorDump& next,
                                const AccuracyThresholds& thresholds,
                                const AccuracyOptions& options) {
  return CompareDumps(std::make_shared<const TensorDump>(base),
                      std::make_shared<const TensorDump>(next), thresholds, options);
}

AccuracyComparison CompareDumps(std::shared_ptr<const TensorDump> base_dump,
                                std::shared_ptr<const TensorDump> next_dump,
                                const AccuracyThresholds& thresholds,
                                const AccuracyOptions& options) {
  const TensorDump& base = *base_dump;
  const TensorDump& next = *next_dump;
  const std::vector<OpGroup> base_ops = GroupByOp(base);
  const std::vector<OpGroup> next_ops = GroupByOp(next);
  AccuracyComparison c;
  // The pairs refer to the dumps' tensors: the comparison holds the dumps.
  c.base_dump = std::move(base_dump);
  c.next_dump = std::move(next_dump);
  c.cross_framework = !base.framework.empty() && !next.framework.empty() &&
                      AsciiLowerName(base.framework) != AsciiLowerName(next.framework);
  const ApiNameTable& table =
      options.api_table != nullptr ? *options.api_table : ApiNameTable::Builtin();
  std::vector<std::string> base_keys, next_keys, base_rules, next_rules;
  MatchKeysOfCalls(base_ops, c.cross_framework, table, nullptr, &base_keys, &base_rules);
  MatchKeysOfCalls(next_ops, c.cross_framework, table, options.mapping, &next_keys, &next_rules);

  c.base = Side(base, base_ops.size());
  c.next = Side(next, next_ops.size());
  std::vector<std::pair<size_t, size_t>> tensor_pairs;  // BASE index, NEW index
  std::vector<std::string> pair_rules;                  // how each pair's calls matched
  std::optional<DifferingSpan> span;
  std::string last_common;
  auto close_span = [&] {
    if (span) c.spans.push_back(std::move(*span));
    span.reset();
  };
  for (const AlignedPair& a : AlignSequences(base_keys, next_keys)) {
    if (a.base && a.next) {
      close_span();
      ++c.matched_ops;
      const OpGroup& gb = base_ops[*a.base];
      const OpGroup& gn = next_ops[*a.next];
      last_common = gb.op;
      PairTensors(base, gb, next, gn, &tensor_pairs, &c);
      const std::string rule = MatchRuleOf(next_rules[*a.next], base_rules[*a.base], gb, gn);
      ++c.match_rules[rule];
      pair_rules.resize(tensor_pairs.size(), rule);
      continue;
    }
    if (!span) {
      span.emplace();
      span->after = last_common;
    }
    if (a.base) {
      ++c.base_only_ops;
      const OpGroup& g = base_ops[*a.base];
      span->base_ops.push_back(g.op);
      const DumpTensor& t = base.tensors[g.tensors.front()];
      if (span->base_ops.size() == 1) span->base_order = t.order;
      if (span->module.empty()) span->module = t.module;
    } else {
      ++c.next_only_ops;
      const OpGroup& g = next_ops[*a.next];
      span->next_ops.push_back(g.op);
      if (span->module.empty()) span->module = next.tensors[g.tensors.front()].module;
    }
  }
  close_span();

  c.pairs.resize(tensor_pairs.size());
  ParallelFor(tensor_pairs.size(), ClampThreads(options.threads), [&](size_t k) {
    const DumpTensor& a = base.tensors[tensor_pairs[k].first];
    const DumpTensor& b = next.tensors[tensor_pairs[k].second];
    TensorPair& p = c.pairs[k];
    p.base_tensor = &a;
    p.next_tensor = &b;
    p.match_rule = pair_rules[k];
    const AccuracyLimits& limits = thresholds.ForPair(a.type, b.type);
    p.limits = {limits.min_cosine, limits.max_abs, limits.stat_rel};
    ComparePair(a, b, &p);
  });
  for (size_t k = 0; k < tensor_pairs.size(); ++k) {
    const DumpTensor& a = base.tensors[tensor_pairs[k].first];
    const DumpTensor& b = next.tensors[tensor_pairs[k].second];
    const model::ElementType key =
        &thresholds.ForPair(a.type, b.type) == &thresholds.For(a.type) ? a.type : b.type;
    c.limits_used.emplace(
        model::IsFloating(key) ? std::string(model::ElementTypeName(key)) : "other",
        thresholds.ForPair(a.type, b.type));
  }
  FillSummary(&c, options);
  FillCoverageAndVerdict(&c);
  return c;
}

RankSummary SummariseRank(const AccuracyComparison& c, std::string rank) {
  RankSummary r;
  r.rank = std::move(rank);
  r.verdict = c.verdict;
  r.verdict_reason = c.verdict_reason;
  r.diverged = c.diverged;
  r.pairs = static_cast<int64_t>(c.pairs.size());
  if (c.first_divergence) {
    const TensorPair& p = c.pairs[*c.first_divergence];
    r.first_call = p.op();
    r.first_tensor = p.name();
    r.first_detail = p.detail;
  }
  return r;
}

LossComparison CompareLossCurves(const std::vector<LossPoint>& base,
                                 const std::vector<LossPoint>& next, double tolerance,
                                 int64_t sustain) {
  LossComparison c;
  c.base_points = static_cast<int64_t>(base.size());
  c.next_points = static_cast<int64_t>(next.size());
  c.tolerance = tolerance;
  c.sustain = std::max<int64_t>(1, sustain);
  c.base = base;
  c.next = next;
  std::map<int64_t, double> by_step;
  for (const LossPoint& p : next) by_step.emplace(p.step, p.loss);
  int64_t run = 0;
  std::optional<int64_t> run_start;
  std::optional<double> run_rel;
  for (const LossPoint& p : base) {
    auto it = by_step.find(p.step);
    if (it == by_step.end()) continue;
    ++c.common_steps;
    const double a = p.loss, b = it->second;
    const double scale = std::max(std::fabs(a), std::fabs(b));
    double rel = 0;
    if (std::isnan(a) != std::isnan(b) || std::isinf(a) != std::isinf(b)) {
      rel = kInf;
    } else if (std::isfinite(a) && scale > 0) {
      rel = std::fabs(b - a) / scale;
    }
    if (rel > c.max_rel) {
      c.max_rel = rel;
      c.max_rel_step = p.step;
    }
    if (rel > tolerance) {
      if (run == 0) {
        run_start = p.step;
        run_rel = rel;
      }
      ++run;
      if (run >= c.sustain && !c.separation_step) {
        c.separation_step = run_start;
        c.separation_rel = run_rel;
      }
    } else {
      run = 0;
    }
  }
  return c;
}

}  // namespace trainscope::analysis
