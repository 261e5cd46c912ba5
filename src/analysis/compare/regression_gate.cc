#include "analysis/compare/regression_gate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include "analysis/compare/mann_whitney.h"

namespace trainscope::analysis {
namespace {

constexpr double kGateNsPerMs = 1e6;

struct GateMetricSpec {
  const char* id;
  const char* label;
  bool named;  // takes a NAME (op, family)
};

constexpr GateMetricSpec kGateMetrics[] = {
    {"step_time", "step time", false},
    {"exposed_comm", "exposed communication", false},
    {"communication", "communication", false},
    {"computation", "computation", false},
    {"free", "free (device idle)", false},
    {"kernel_time", "summed kernel time", false},
    {"op", "operator", true},
    {"family", "family", true},
};

const GateMetricSpec* GateMetricOf(std::string_view id) {
  for (const GateMetricSpec& spec : kGateMetrics) {
    if (id == spec.id) return &spec;
  }
  return nullptr;
}

std::string_view TrimGateText(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

Status BadGateRule(std::string_view rule, std::string_view why) {
  return UsageError(
      fmt::format("--gate: rule '{}': {}\nhint: rules are METRIC:+N% or METRIC:+Nms, or "
                  "op:NAME:+N% / family:NAME:+N% (NAME * for each one), separated by commas; "
                  "metrics: step_time, exposed_comm, communication, computation, free, "
                  "kernel_time, op, family; the default is {}",
                  rule, why, kDefaultGateRules));
}

Result<GateRule> ParseOneGateRule(std::string_view text) {
  GateRule rule;
  rule.text = std::string(text);
  const size_t first = text.find(':');
  const size_t last = text.rfind(':');
  if (first == std::string_view::npos) return BadGateRule(text, "no threshold");
  const std::string_view metric = TrimGateText(text.substr(0, first));
  const GateMetricSpec* spec = GateMetricOf(metric);
  if (spec == nullptr) return BadGateRule(text, fmt::format("unknown metric '{}'", metric));
  rule.metric = spec->id;
  if (spec->named) {
    if (last == first) return BadGateRule(text, "names no operator or family");
    rule.name = std::string(TrimGateText(text.substr(first + 1, last - first - 1)));
    if (rule.name.empty()) return BadGateRule(text, "names no operator or family");
  } else if (last != first) {
    return BadGateRule(text, fmt::format("{} takes no name", rule.metric));
  }
  std::string_view threshold = TrimGateText(text.substr(last + 1));
  if (threshold.empty() || threshold.front() != '+') {
    return BadGateRule(text, "the threshold must be an increase, like +3% or +2ms");
  }
  threshold.remove_prefix(1);
  double scale = 1;
  if (threshold.ends_with("%")) {
    threshold.remove_suffix(1);
  } else if (threshold.ends_with("ms")) {
    threshold.remove_suffix(2);
    rule.relative = false;
  } else if (threshold.ends_with("us")) {
    threshold.remove_suffix(2);
    rule.relative = false;
    scale = 1e-3;
  } else {
    return BadGateRule(text, "the threshold needs a unit: %, ms or us");
  }
  const std::string number(threshold);
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(value) ||
      value < 0) {
    return BadGateRule(text, "the threshold is not a number >= 0");
  }
  rule.threshold = value * scale;
  return rule;
}

// Samples of one metric on one side: one value (ms) per step of each rank.
// A step without device activity has no value for any metric; a step
// without a time budget none for the budget's parts.
struct GateSamples {
  std::vector<double> values;
  double total_ms = 0;
};

std::optional<int64_t> GateStepNs(const StepDistribution& s) {
  if (s.breakdown && s.breakdown->budget.total_ns > 0) return s.breakdown->budget.total_ns;
  if (s.kernels.count > 0) return s.kernels.span_ns;
  return std::nullopt;
}

std::optional<int64_t> GateValueNs(const StepDistribution& s, const std::string& metric,
                                   const std::string& name) {
  if (s.kernels.count == 0) return std::nullopt;
  if (metric == "step_time") return GateStepNs(s);
  if (metric == "kernel_time") return s.kernels.total_time_ns;
  if (metric == "op") {
    int64_t ns = 0;
    for (const OperatorStat& op : s.top_operators) ns += op.op_type == name ? op.total_ns : 0;
    return ns;
  }
  if (metric == "family") {
    int64_t ns = 0;
    for (const FamilyStat& f : s.families) ns += f.name == name ? f.total_ns : 0;
    return ns;
  }
  if (!s.breakdown) return std::nullopt;
  const TimeBudget& b = s.breakdown->budget;
  if (metric == "exposed_comm") return b.exposed_communication_ns;
  if (metric == "communication") return b.communication_ns;
  if (metric == "computation") return b.computation_ns;
  if (metric == "free") return b.idle_ns;
  return std::nullopt;
}

GateSamples GateSamplesOf(const JobAnalysis& job, const std::string& metric,
                          const std::string& name) {
  GateSamples samples;
  for (const RankAnalysis& rank : job.ranks) {
    for (const StepDistribution& step : rank.steps) {
      if (const std::optional<int64_t> ns = GateValueNs(step, metric, name)) {
        samples.values.push_back(static_cast<double>(*ns) / kGateNsPerMs);
        samples.total_ms += samples.values.back();
      }
    }
  }
  return samples;
}

// The quantile |q| of sorted |v|, interpolated.
double GateQuantile(const std::vector<double>& sorted, double q) {
  const double at = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(at));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - static_cast<double>(lo));
}

// Names of every operator type or family of |job| with their summed time
// (ms); |collectives|: with communication operators.
std::map<std::string, double> GateNamedTotals(const JobAnalysis& job, const std::string& metric,
                                              bool collectives) {
  std::map<std::string, double> totals;
  for (const RankAnalysis& rank : job.ranks) {
    for (const StepDistribution& step : rank.steps) {
      if (metric == "op") {
        for (const OperatorStat& op : step.top_operators) {
          if (!collectives && op.family == "communication") continue;
          totals[op.op_type] += static_cast<double>(op.total_ns) / kGateNsPerMs;
        }
      } else {
        for (const FamilyStat& f : step.families)
          totals[f.name] += static_cast<double>(f.total_ns) / kGateNsPerMs;
      }
    }
  }
  return totals;
}

double GateKernelTotalMs(const JobAnalysis& job) {
  double ms = 0;
  for (const RankAnalysis& rank : job.ranks) {
    for (const StepDistribution& step : rank.steps)
      ms += static_cast<double>(step.kernels.total_time_ns) / kGateNsPerMs;
  }
  return ms;
}

// The names a rule applies to: its own, or for `*` every one holding at
// least |min_share| of a side's kernel time, by BASE's time descending.
Result<std::vector<std::string>> GateNamesOf(const JobAnalysis& base, const JobAnalysis& next,
                                             const GateRule& rule, double min_share) {
  // `op:*` leaves collectives out: their time includes the wait for the
  // slowest rank, which exposed_comm judges; a rule may still name one.
  const bool collectives = rule.name != "*";
  const std::map<std::string, double> b = GateNamedTotals(base, rule.metric, collectives);
  const std::map<std::string, double> n = GateNamedTotals(next, rule.metric, collectives);
  if (rule.name != "*") {
    const auto known = [&](const std::map<std::string, double>& totals) {
      auto it = totals.find(rule.name);
      return it != totals.end() && it->second > 0;
    };
    if (!known(b) && !known(n)) {
      return UsageError(fmt::format(
          "--gate: rule '{}': no {} '{}' in BASE or NEW\nhint: name an operator type or family "
          "of the `compare` tables, or use {}:*",
          rule.text, rule.metric == "op" ? "operator type" : "family", rule.name, rule.metric));
    }
    return std::vector<std::string>{rule.name};
  }
  const double base_kernels = GateKernelTotalMs(base), next_kernels = GateKernelTotalMs(next);
  std::set<std::string> chosen;
  for (const auto& [totals, kernels] : {std::pair{&b, base_kernels}, std::pair{&n, next_kernels}}) {
    for (const auto& [name, ms] : *totals) {
      if (kernels > 0 && ms >= min_share * kernels) chosen.insert(name);
    }
  }
  std::vector<std::string> names(chosen.begin(), chosen.end());
  const auto base_ms = [&](const std::string& name) {
    auto it = b.find(name);
    return it == b.end() ? 0.0 : it->second;
  };
  std::stable_sort(names.begin(), names.end(), [&](const std::string& x, const std::string& y) {
    return base_ms(x) > base_ms(y);
  });
  return names;
}

std::string GateThresholdText(double threshold, bool relative) {
  return relative ? fmt::format("+{:g}%", threshold) : fmt::format("+{:g}ms", threshold);
}

GateCheck DecideGateCheck(const JobAnalysis& base, const JobAnalysis& next, const GateRule& rule,
                          const std::string& name, const GateOptions& options) {
  GateCheck c;
  c.metric = rule.metric;
  c.name = name;
  c.threshold = rule.threshold;
  c.relative = rule.relative;
  c.rule = name.empty()
               ? fmt::format("{}:{}", rule.metric, GateThresholdText(rule.threshold, rule.relative))
               : fmt::format("{}:{}:{}", rule.metric, name,
                             GateThresholdText(rule.threshold, rule.relative));
  const GateMetricSpec* spec = GateMetricOf(rule.metric);
  c.label = name.empty() ? spec->label : fmt::format("{} {}", spec->label, name);
  GateSamples b = GateSamplesOf(base, rule.metric, name);
  GateSamples n = GateSamplesOf(next, rule.metric, name);
  c.n_base = b.values.size();
  c.n_next = n.values.size();
  const RankSumTest test = MannWhitneyGreater(b.values, n.values);
  c.u = test.p_value ? std::optional<double>(test.u) : std::nullopt;
  c.p_value = test.p_value;
  c.min_p_value = test.min_p_value;
  c.exact = test.exact;
  std::sort(b.values.begin(), b.values.end());
  std::sort(n.values.begin(), n.values.end());
  const auto spread = [](const std::vector<double>& v, double median) -> std::optional<double> {
    if (v.size() < 2 || median <= 0) return std::nullopt;
    return (GateQuantile(v, 0.75) - GateQuantile(v, 0.25)) / median * 100.0;
  };
  if (!b.values.empty()) {
    c.base_median_ms = GateQuantile(b.values, 0.5);
    c.base_spread_pct = spread(b.values, *c.base_median_ms);
  }
  if (!n.values.empty()) {
    c.next_median_ms = GateQuantile(n.values, 0.5);
    c.next_spread_pct = spread(n.values, *c.next_median_ms);
  }
  if (c.n_base == 0 || c.n_next == 0) {
    c.reason = fmt::format("no {} on {} (no step with device activity{})", c.label,
                           c.n_base == 0 ? "BASE" : "NEW",
                           rule.metric == "step_time" || rule.metric == "kernel_time" ||
                                   rule.metric == "op" || rule.metric == "family"
                               ? ""
                               : " and a time budget");
    return c;
  }
  c.shift_ms = *c.next_median_ms - *c.base_median_ms;
  if (*c.base_median_ms > 0) c.shift_pct = *c.shift_ms / *c.base_median_ms * 100.0;
  const bool above = rule.relative ? (c.shift_pct ? *c.shift_pct > rule.threshold : *c.shift_ms > 0)
                                   : *c.shift_ms > rule.threshold;
  const std::string shift = c.shift_pct
                                ? fmt::format("median {:.3f} -> {:.3f} ms ({:+.2f}%)",
                                              *c.base_median_ms, *c.next_median_ms, *c.shift_pct)
                                : fmt::format("median {:.3f} -> {:.3f} ms (from none)",
                                              *c.base_median_ms, *c.next_median_ms);
  const std::string samples = fmt::format("{} BASE and {} NEW samples", c.n_base, c.n_next);
  if (!options.not_comparable.empty()) {
    c.reason = fmt::format("{}; {}", options.not_comparable, shift);
    return c;
  }
  if (*c.min_p_value >= options.level) {
    c.reason = fmt::format(
        "{}: too few for the test to reach the {:g} level (the smallest p-value they allow is "
        "{:.3g}); {}; capture more steps or ranks",
        samples, options.level, *c.min_p_value, shift);
    return c;
  }
  if (above && *c.p_value < options.level) {
    c.verdict = GateVerdict::kRegression;
    c.reason = fmt::format("{}, above {} and real (one-sided Mann-Whitney p = {:.3g} < {:g}, {})",
                           shift, GateThresholdText(rule.threshold, rule.relative), *c.p_value,
                           options.level, samples);
    return c;
  }
  c.verdict = GateVerdict::kPass;
  c.reason = above ? fmt::format("{}, above {} but within the noise (p = {:.3g} >= {:g}, {})",
                                 shift, GateThresholdText(rule.threshold, rule.relative),
                                 *c.p_value, options.level, samples)
                   : fmt::format("{}, within {} ({})", shift,
                                 GateThresholdText(rule.threshold, rule.relative), samples);
  return c;
}

}  // namespace

Result<std::vector<GateRule>> ParseGateRules(std::string_view text) {
  text = TrimGateText(text);
  if (text.empty() || text == "default") text = kDefaultGateRules;
  std::vector<GateRule> rules;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view one = TrimGateText(text.substr(0, comma));
    if (!one.empty()) {
      if (one == "default") {
        TS_ASSIGN_OR_RETURN(std::vector<GateRule> defaults, ParseGateRules(kDefaultGateRules));
        rules.insert(rules.end(), defaults.begin(), defaults.end());
      } else {
        TS_ASSIGN_OR_RETURN(GateRule rule, ParseOneGateRule(one));
        rules.push_back(std::move(rule));
      }
    }
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  if (rules.empty()) return BadGateRule(text, "no rule");
  return rules;
}

const char* GateVerdictKey(GateVerdict v) {
  switch (v) {
    case GateVerdict::kPass:
      return "pass";
    case GateVerdict::kRegression:
      return "regression";
    case GateVerdict::kCannotConclude:
      return "cannot_conclude";
  }
  return "cannot_conclude";
}

Result<GateResult> RunGate(const JobAnalysis& base, const JobAnalysis& next,
                           const std::vector<GateRule>& rules, const GateOptions& options) {
  GateResult result;
  result.level = options.level;
  for (const GateRule& rule : rules) {
    result.rules += (result.rules.empty() ? "" : ",") + rule.text;
    if (rule.name.empty()) {
      result.checks.push_back(DecideGateCheck(base, next, rule, "", options));
      continue;
    }
    TS_ASSIGN_OR_RETURN(std::vector<std::string> names,
                        GateNamesOf(base, next, rule, options.operator_min_share));
    for (const std::string& name : names)
      result.checks.push_back(DecideGateCheck(base, next, rule, name, options));
  }
  int failed = 0, undecided = 0;
  for (const GateCheck& c : result.checks) {
    failed += c.verdict == GateVerdict::kRegression ? 1 : 0;
    undecided += c.verdict == GateVerdict::kCannotConclude ? 1 : 0;
  }
  result.verdict = failed > 0      ? GateVerdict::kRegression
                   : undecided > 0 ? GateVerdict::kCannotConclude
                                   : GateVerdict::kPass;
  if (failed > 0) {
    std::string names;
    for (const GateCheck& c : result.checks) {
      if (c.verdict == GateVerdict::kRegression) names += (names.empty() ? "" : ", ") + c.rule;
    }
    result.summary = fmt::format("regression: {} of {} check(s) failed ({})", failed,
                                 result.checks.size(), names);
  } else if (undecided > 0) {
    result.summary = fmt::format("cannot conclude: {} of {} check(s) undecided, none failed",
                                 undecided, result.checks.size());
  } else {
    result.summary = fmt::format("pass: {} check(s), no regression at the {:g} level",
                                 result.checks.size(), options.level);
  }
  return result;
}

}  // namespace trainscope::analysis
