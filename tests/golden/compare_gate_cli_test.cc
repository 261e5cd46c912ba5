// `trainscope compare --gate` on synth jobs (docs/compare.md "Regression
// gate"): identical runs and run-to-run noise (two seeds of one job) pass,
// a planted 5% compute slow-down fails the step-time rule with exit 3, a
// planted slow-down of one operator (30% of an operator holding ~5% of the
// step: the step grows ~1.4%) fails that operator's rule only.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "golden/cli_test_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

// The jobs, made once: 2 ranks x 4 steps = 8 samples a side.
struct GateJobs {
  std::string base, same, noise, slow, slow_op;
};

const GateJobs& Jobs() {
  static const GateJobs jobs = [] {
    const std::string dir = MakeTempDir("compare_gate");
    GateJobs j{dir + "/base", dir + "/same", dir + "/noise", dir + "/slow", dir + "/slow_op"};
    // Bound ranks (--fused numa): a tuned job, whose step is its compute.
    const std::vector<std::string> common = {"synth",   "--ranks", "2",       "--layers", "2",
                                             "--steps", "4",       "--fused", "numa"};
    auto make = [&](const std::string& out, std::vector<std::string> extra) {
      std::vector<std::string> args = common;
      args.insert(args.end(), {"--out", out});
      args.insert(args.end(), extra.begin(), extra.end());
      const CommandResult r = RunTrainscope(args);
      EXPECT_EQ(r.exit_code, 0) << r.err;
    };
    make(j.base, {"--seed", "2"});
    make(j.same, {"--seed", "2"});
    make(j.noise, {"--seed", "3"});
    make(j.slow, {"--seed", "3", "--slowdown", "1.05"});
    make(j.slow_op, {"--seed", "3", "--slow-op", "FlashAttentionScoreGrad:1.3"});
    return j;
  }();
  return jobs;
}

struct GateRun {
  int exit_code = -1;
  std::string verdict;
  std::map<std::string, std::string> verdicts;  // rule -> verdict
  std::map<std::string, double> shift_pct;      // rule -> shift, where known
  std::map<std::string, double> p_value;
};

GateRun Gate(const std::string& base, const std::string& next, const std::string& rules = "") {
  std::vector<std::string> args = {"compare", base, next, "--json", "-"};
  args.push_back(rules.empty() ? "--gate" : "--gate=" + rules);
  const CommandResult r = RunTrainscope(args);
  GateRun run;
  run.exit_code = r.exit_code;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  EXPECT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.err << r.out.substr(0, 300);
  if (doc.is_null()) return run;
  std::string_view verdict;
  EXPECT_EQ(doc["gate"]["verdict"].get(verdict), simdjson::SUCCESS);
  run.verdict = std::string(verdict);
  for (simdjson::dom::element c : doc["gate"]["checks"].get_array()) {
    std::string_view rule, v;
    EXPECT_EQ(c["rule"].get(rule), simdjson::SUCCESS);
    EXPECT_EQ(c["verdict"].get(v), simdjson::SUCCESS);
    run.verdicts[std::string(rule)] = std::string(v);
    double shift = 0, p = 0;
    if (c["shift_pct"].get(shift) == simdjson::SUCCESS) run.shift_pct[std::string(rule)] = shift;
    if (c["p_value"].get(p) == simdjson::SUCCESS) run.p_value[std::string(rule)] = p;
    int64_t n_base = 0;
    EXPECT_EQ(c["n_base"].get(n_base), simdjson::SUCCESS);
  }
  return run;
}

TEST(CompareGate, IdenticalRunsPass) {
  const GateJobs& j = Jobs();
  GateRun g = Gate(j.base, j.same, "step_time:+3%,op:*:+10%");
  EXPECT_EQ(g.exit_code, 0);
  EXPECT_EQ(g.verdict, "pass");
  for (const auto& [rule, shift] : g.shift_pct) EXPECT_DOUBLE_EQ(shift, 0) << rule;
}

TEST(CompareGate, RunToRunNoisePasses) {
  const GateJobs& j = Jobs();
  GateRun g = Gate(j.base, j.noise);
  EXPECT_EQ(g.exit_code, 0) << g.verdict;
  EXPECT_EQ(g.verdict, "pass");
  // The noise between two seeds, for the record (docs/compare.md quotes it).
  for (const auto& [rule, shift] : g.shift_pct) {
    std::printf("noise %-40s shift %+.3f%%  p %.4f\n", rule.c_str(), shift, g.p_value.at(rule));
  }
  ASSERT_TRUE(g.shift_pct.count("step_time:+3%"));
  EXPECT_LT(std::fabs(g.shift_pct.at("step_time:+3%")), 3.0);
}

TEST(CompareGate, PlantedStepRegressionExitsThree) {
  const GateJobs& j = Jobs();
  GateRun g = Gate(j.base, j.slow);
  EXPECT_EQ(g.exit_code, 3);
  EXPECT_EQ(g.verdict, "regression");
  EXPECT_EQ(g.verdicts["step_time:+3%"], "regression");
  std::printf("planted 5%% compute slow-down: step time %+.3f%%, p %.5f\n",
              g.shift_pct["step_time:+3%"], g.p_value["step_time:+3%"]);
}

TEST(CompareGate, PlantedOperatorRegressionFailsOnlyThatOperator) {
  const GateJobs& j = Jobs();
  GateRun g = Gate(j.base, j.slow_op);
  EXPECT_EQ(g.exit_code, 3);
  EXPECT_EQ(g.verdicts["op:FlashAttentionScoreGrad:+10%"], "regression");
  for (const auto& [rule, verdict] : g.verdicts) {
    if (rule != "op:FlashAttentionScoreGrad:+10%") {
      EXPECT_NE(verdict, "regression") << rule;
    }
  }
}

TEST(CompareGate, TooFewStepsCannotConcludeWithExitFour) {
  // 2 ranks x 2 steps a side: the smallest p-value is 1 / C(8, 4) = 1 / 70.
  const std::string dir = MakeTempDir("compare_gate_few");
  for (const std::string& side : {std::string("a"), std::string("b")}) {
    const CommandResult made =
        RunTrainscope({"synth", "--out", dir + "/" + side, "--ranks", "2", "--layers", "2",
                       "--steps", "2", "--seed", side == "a" ? "1" : "2"});
    ASSERT_EQ(made.exit_code, 0) << made.err;
  }
  GateRun g = Gate(dir + "/a", dir + "/b", "step_time:+3%");
  EXPECT_EQ(g.exit_code, 4);
  EXPECT_EQ(g.verdict, "cannot_conclude");
}

TEST(CompareGate, BadRulesAreUsageErrors) {
  const GateJobs& j = Jobs();
  const CommandResult bad = RunTrainscope({"compare", j.base, j.noise, "--gate=speed:+3%"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("hint:"), std::string::npos) << bad.err;
  const CommandResult unknown =
      RunTrainscope({"compare", j.base, j.noise, "--gate=op:NoSuchOp:+10%"});
  EXPECT_EQ(unknown.exit_code, 2);
}

TEST(CompareGate, WithoutGateTheDocumentSaysNull) {
  const GateJobs& j = Jobs();
  const CommandResult r = RunTrainscope({"compare", j.base, j.noise, "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS);
  EXPECT_TRUE(doc["gate"].is_null());
  std::string_view workload;
  ASSERT_EQ(doc["workload"]["verdict"].get(workload), simdjson::SUCCESS);
  EXPECT_EQ(workload, "same");
}

}  // namespace
}  // namespace trainscope::testing
