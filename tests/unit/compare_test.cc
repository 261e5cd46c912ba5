// `compare` on synth twins: a baseline against the
// same job with every fusion on, and against each fusion alone. The
// comparison must name exactly the chains the generator removed, with the
// generator's instance counts, and its kernel delta per step must equal
// the generator's ground truth (ground_truth.json, read here, written by
// synth from what it planted; the detectors never see it).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "analysis/common/family_rules.h"
#include "analysis/compare/run_comparison.h"
#include "analysis/job/rank_analysis.h"
#include "synth/synth.h"
#include "synth_job.h"

namespace trainscope::analysis {
namespace {

struct Truth {
  int64_t kernels_per_step = -1;             // rank 0
  std::map<std::string, int64_t> instances;  // fingerprinted chains planted: fwd + bwd per step
};

Truth ReadTruth(const std::string& dir) {
  Truth truth;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.load(dir + "/ground_truth.json").get(doc)) {
    ADD_FAILURE() << "cannot read " << dir << "/ground_truth.json";
    return truth;
  }
  int64_t kernels = -1;
  if (!doc["ranks"].at(0)["kernels_per_step"].get(kernels)) truth.kernels_per_step = kernels;
  for (simdjson::dom::element p : doc["patterns"].get_array()) {
    bool planted = false;
    std::string_view id;
    if (p["planted"].get(planted) || !planted || p["id"].get(id)) continue;
    // Only chains of kernels (they have a type sequence); the others are
    // timing faults (pseudo-overlap, skew).
    if (p["type_sequence"].error()) continue;
    int64_t fwd = 0, bwd = 0;
    if (p["instances_per_step_per_rank"].get(fwd)) fwd = 0;
    if (p["backward_instances_per_step_per_rank"].get(bwd)) bwd = 0;
    truth.instances[std::string(id)] = fwd + bwd;
  }
  return truth;
}

struct Side {
  JobAnalysis job;
  Truth truth;
};

Side Analyse(const synth::SynthOptions& options, const std::string& tag) {
  std::string dir;
  auto profiles = testing::LoadSynthJob(options, tag, 2, &dir);
  EXPECT_TRUE(profiles.ok()) << profiles.status().message();
  Side side;
  if (!profiles.ok()) return side;
  side.truth = ReadTruth(dir);
  auto rules = FamilyRules::Merge({}, FamilyRules::Builtin());
  AnalysisOptions analysis_options;
  analysis_options.distribution.top_operators = 100000;
  auto job = AnalyzeJob(profiles->profiles, rules, analysis_options, 2);
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(job.ok());
  if (job.ok()) side.job = std::move(*job);
  return side;
}

synth::SynthOptions Baseline() {
  synth::SynthOptions o;
  o.ranks = 2;
  o.layers = 4;
  o.steps = 3;
  // Only the fusions differ between the twins: bind the hosts and prefetch
  // the unshard on both sides, so the step time moves by the fusions alone.
  o.numa_bound = true;
  o.unshard_on_compute_stream = true;
  return o;
}

RunComparison Compare(const Side& base, const Side& next) {
  auto c = CompareRuns(base.job, next.job, CompareOptions{});
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? std::move(*c) : RunComparison{};
}

std::optional<double> Value(const RunComparison& c, const std::string& id, bool base) {
  for (const ComparedValue& v : c.values) {
    if (v.id == id) return base ? v.base : v.next;
  }
  return std::nullopt;
}

// The fingerprinted chains the comparison says are gone, with BASE's
// instance counts.
std::map<std::string, int64_t> GoneChains(const RunComparison& c) {
  std::map<std::string, int64_t> gone;
  for (const ComparedFinding& f : c.findings) {
    if (f.in_base && !f.in_next && f.counts_instances) gone[f.id] = f.base_instances;
  }
  return gone;
}

bool HasPrediction(const RunComparison& c, const std::string& id) {
  for (const auto& p : c.predictions) {
    if (p.id == id) return true;
  }
  return false;
}

void ExpectKernelDeltaIsTheTruth(const RunComparison& c, const Side& base, const Side& next) {
  ASSERT_GT(base.truth.kernels_per_step, 0);
  ASSERT_GT(next.truth.kernels_per_step, 0);
  ASSERT_TRUE(Value(c, "kernels", true));
  EXPECT_EQ(*Value(c, "kernels", true), static_cast<double>(base.truth.kernels_per_step));
  EXPECT_EQ(*Value(c, "kernels", false), static_cast<double>(next.truth.kernels_per_step));
}

TEST(CompareTest, EveryFusionNamesExactlyThePlantedChains) {
  const Side base = Analyse(Baseline(), "compare-base");
  const Side fused = Analyse(synth::AllFused(Baseline()), "compare-fused");
  const RunComparison c = Compare(base, fused);
  ExpectKernelDeltaIsTheTruth(c, base, fused);
  EXPECT_EQ(GoneChains(c), base.truth.instances);
  EXPECT_TRUE(fused.truth.instances.empty());
  ASSERT_TRUE(c.step_change_pct);
  EXPECT_LT(*c.step_change_pct, 0);  // the fused run is faster
  EXPECT_NE(c.verdict.find("faster"), std::string::npos) << c.verdict;
  // Fused operators appear, decomposed ones disappear.
  std::set<std::string> appeared, gone;
  for (const ComparedGroup& op : c.operators) {
    if (op.base_count == 0) appeared.insert(op.name);
    if (op.next_count == 0) gone.insert(op.name);
  }
  EXPECT_TRUE(appeared.count("RmsNorm") && appeared.count("SwiGlu")) << appeared.size();
  EXPECT_TRUE(gone.count("Pows") && gone.count("LogSoftmaxV2")) << gone.size();
  // Every gone chain gets a prediction check, and all of them together
  // (findings that depended on the chains' kernels, e.g. a matmul type
  // dominating once the vocabulary matmuls are fused away, get one too).
  for (const auto& [id, instances] : GoneChains(c)) EXPECT_TRUE(HasPrediction(c, id)) << id;
  EXPECT_GE(c.predictions.size(), GoneChains(c).size());
  ASSERT_TRUE(c.combined_prediction);
  EXPECT_TRUE(c.combined_prediction->measured_gain_pct);
}

TEST(CompareTest, EachFusionAloneRemovesItsOwnChain) {
  const Side base = Analyse(Baseline(), "compare-alone-base");
  const std::vector<std::pair<const char*, bool synth::SynthOptions::*>> switches = {
      {"unfused-rmsnorm", &synth::SynthOptions::fused_rmsnorm},
      {"unfused-swiglu", &synth::SynthOptions::fused_swiglu},
      {"unfused-cross-entropy", &synth::SynthOptions::fused_cross_entropy},
      {"glue-around-custom-op", &synth::SynthOptions::native_custom_op},
  };
  for (const auto& [id, flag] : switches) {
    synth::SynthOptions o = Baseline();
    o.*flag = true;
    const Side next = Analyse(o, std::string("compare-alone-") + id);
    const RunComparison c = Compare(base, next);
    ExpectKernelDeltaIsTheTruth(c, base, next);
    const std::map<std::string, int64_t> gone = GoneChains(c);
    ASSERT_EQ(gone.size(), 1u) << id;
    EXPECT_EQ(gone.begin()->first, id);
    EXPECT_EQ(gone.begin()->second, base.truth.instances.at(id)) << id;
    EXPECT_TRUE(HasPrediction(c, id)) << id;
    // One finding gone: its own line is the check; more (the fused loss
    // also takes the vocabulary matmuls out of MatMulV3) get the combined
    // line too.
    EXPECT_EQ(c.combined_prediction.has_value(), c.predictions.size() > 1) << id;
  }
}

TEST(CompareTest, ARunAgainstItselfIsAboutTheSame) {
  const Side side = Analyse(Baseline(), "compare-same");
  const RunComparison c = Compare(side, side);
  EXPECT_NE(c.verdict.find("about the same"), std::string::npos) << c.verdict;
  for (const ComparedValue& v : c.values) {
    if (v.delta()) {
      EXPECT_EQ(*v.delta(), 0) << v.id;
    }
  }
  for (const ComparedFinding& f : c.findings) EXPECT_TRUE(f.in_base && f.in_next) << f.id;
  for (const ComparedGroup& op : c.operators) EXPECT_EQ(op.delta_ns(), 0) << op.name;
  EXPECT_TRUE(c.predictions.empty());
}

TEST(CompareTest, UnknownIsNotZeroAndAMissingRankIsAnError) {
  const Side side = Analyse(Baseline(), "compare-rank");
  CompareOptions options;
  options.rank = 7;
  auto missing = CompareRuns(side.job, side.job, options);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("--rank 7"), std::string::npos);
  // A side without any rank (nothing analysed): its numbers are unknown.
  const JobAnalysis empty;
  auto c = CompareRuns(side.job, empty, CompareOptions{});
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->values.front().next);
  EXPECT_FALSE(c->values.front().delta());
  EXPECT_FALSE(c->step_change_pct);
  EXPECT_NE(c->verdict.find("no step time"), std::string::npos);
}

}  // namespace
}  // namespace trainscope::analysis
