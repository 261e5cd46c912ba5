// The regression gate of `trainscope compare BASE NEW --gate [RULES]`: per
// rule, a metric's distribution over every step of every rank on each side
// (not one step of one rank), and a regression only when NEW's median is
// above BASE's by more than the rule's threshold AND a one-sided
// Mann-Whitney U test (mann_whitney.h) finds the shift real at the gate's
// level. Identical runs never fail (no shift); run-to-run noise does not
// either (the test). docs/compare.md "Regression gate" is the user's side.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/job/rank_analysis.h"
#include "core/status.h"

namespace trainscope::analysis {

// The rules `--gate` applies when given no list.
inline constexpr const char* kDefaultGateRules = "step_time:+3%,exposed_comm:+5%,op:*:+10%";

// The one-sided level of the gate's test: a rule fails on noise alone at
// most this often (docs/compare.md says where the level comes from).
inline constexpr double kGateLevel = 0.01;

// `op:*` is every operator type holding at least this share of a side's
// summed kernel time: smaller ones are a few kernels whose jitter is a
// large share of their own time.
inline constexpr double kGateOperatorMinShare = 0.01;

// One rule as written: METRIC[:NAME]:+THRESHOLD(%|ms|us).
struct GateRule {
  std::string text;      // as written, e.g. "op:MatMulV2:+10%"
  std::string metric;    // step_time, exposed_comm, communication, computation, free,
                         // kernel_time, op, family
  std::string name;      // op and family: the operator type or family ("*": each one)
  double threshold = 0;  // percent of BASE's median when |relative|, else ms
  bool relative = true;
};

// "default" or "" is kDefaultGateRules; rules are separated by commas.
Result<std::vector<GateRule>> ParseGateRules(std::string_view text);

enum class GateVerdict { kPass, kRegression, kCannotConclude };
const char* GateVerdictKey(GateVerdict v);  // "pass", "regression", "cannot_conclude"

// One rule applied (a `*` rule is one check per operator or family).
struct GateCheck {
  std::string rule;    // the rule as it applies ("op:MatMulV2:+10%")
  std::string metric;  // as GateRule
  std::string name;
  std::string label;  // for people: "step time", "operator MatMulV2"
  double threshold = 0;
  bool relative = true;
  GateVerdict verdict = GateVerdict::kCannotConclude;
  std::string reason;  // why this verdict, with the numbers
  // Samples (ms): one per step of each rank that has the metric.
  size_t n_base = 0, n_next = 0;
  std::optional<double> base_median_ms, next_median_ms;
  std::optional<double> shift_ms;   // next - base medians
  std::optional<double> shift_pct;  // of BASE's median; nullopt when it is 0
  // The noise of each side: interquartile range over the median, %.
  std::optional<double> base_spread_pct, next_spread_pct;
  std::optional<double> u;
  std::optional<double> p_value;      // one-sided: NEW above BASE
  std::optional<double> min_p_value;  // the smallest p these sample sizes allow
  bool exact = false;
};

struct GateResult {
  std::vector<GateCheck> checks;  // rule order, a `*` rule's checks by BASE time
  double level = kGateLevel;
  std::string rules;  // the rule list applied, as written
  // Regression when any check is one; else cannot conclude when any check
  // is; else pass.
  GateVerdict verdict = GateVerdict::kPass;
  std::string summary;
};

struct GateOptions {
  double level = kGateLevel;
  double operator_min_share = kGateOperatorMinShare;
  // Set when the workload check found two different workloads: every check
  // is then "cannot conclude" with this reason (the numbers still shown).
  std::string not_comparable;
};

// Fails (kUsage) when an `op:` or `family:` rule names what neither run has.
Result<GateResult> RunGate(const JobAnalysis& base, const JobAnalysis& next,
                           const std::vector<GateRule>& rules, const GateOptions& options);

}  // namespace trainscope::analysis
