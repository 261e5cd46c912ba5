// The findings catalogue: the template renderer, the parsers of
// data/findings.tsv and data/thresholds.tsv (errors name file:line), every
// id rendered from what its detector emits, and thresholds that move a
// verdict.
#include "analysis/common/findings_catalog.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "analysis/common/family_rules.h"
#include "analysis/common/finding_template.h"
#include "analysis/findings/cluster_findings.h"
#include "analysis/findings/memory_findings.h"
#include "analysis/findings/pipeline_findings.h"
#include "analysis/health/training_health.h"
#include "analysis/job/rank_analysis.h"
#include "analysis/motifs/fingerprint_library.h"
#include "formats/load_profiles.h"
#include "formats/log/training_log_reader.h"
#include "synth/synth.h"
#include "test_paths.h"
#include "unit/threshold_findings_util.h"

namespace trainscope::analysis {
namespace {

std::string Render(const std::string& tmpl, const std::map<std::string, double>& numbers,
                   const std::map<std::string, std::string>& texts = {},
                   std::vector<std::string>* missing = nullptr) {
  return RenderTemplate(
      tmpl,
      [&](std::string_view name, TemplateValue* v) {
        if (auto it = numbers.find(std::string(name)); it != numbers.end()) {
          v->number = it->second;
          return true;
        }
        if (auto it = texts.find(std::string(name)); it != texts.end()) {
          v->text = it->second;
          v->is_text = true;
          return true;
        }
        return false;
      },
      missing);
}

TEST(FindingTemplate, FormatsNumbersAndText) {
  EXPECT_EQ(Render("{a:f0}|{a:f1}|{a:f2}|{a:f3}", {{"a", 2.34567}}), "2|2.3|2.35|2.346");
  EXPECT_EQ(Render("{s:pct0}% {s:pct1}% {s:pct2}%", {{"s", 0.12345}}), "12% 12.3% 12.35%");
  EXPECT_EQ(Render("{n:int} calls", {{"n", 41.6}}), "42 calls");
  // A step: its number, or the whole capture when there are no steps
  // (kNoStep = -1): no text says "step -1".
  EXPECT_EQ(Render("free in {s:step}", {{"s", 13}}), "free in step 13");
  EXPECT_EQ(Render("free in {s:step}", {{"s", -1}}), "free in the whole capture");
  EXPECT_EQ(Render("{x}", {{"x", 0.5}}), "0.5");
  EXPECT_EQ(Render("op {op} ({family})", {}, {{"op", "MatMulV3"}, {"family", "matmul"}}),
            "op MatMulV3 (matmul)");
  // Text values are inserted as they are, braces included.
  EXPECT_EQ(Render("[{chain}]", {}, {{"chain", "{odd}"}}), "[{odd}]");
}

TEST(FindingTemplate, OptionalPartsNeedEveryValue) {
  EXPECT_EQ(Render("a[[, p {p:f0} us]][[; {who}]] z", {{"p", 948}}), "a, p 948 us z");
  EXPECT_EQ(Render("a[[, p {p:f0} us]][[; {who}]] z", {}, {{"who", "rank 3"}}), "a; rank 3 z");
  EXPECT_EQ(Render("a[[ {p:f0} and {q:f0}]]", {{"p", 1}}), "a");
}

TEST(FindingTemplate, MissingValuesStayVisibleAndAreReported) {
  std::vector<std::string> missing;
  EXPECT_EQ(Render("x {gone:f1} y {text:f1}", {}, {{"text", "t"}}, &missing),
            "x {gone:f1} y {text:f1}");
  EXPECT_EQ(missing, (std::vector<std::string>{"gone", "text"}));
}

TEST(FindingTemplate, CheckRejectsBadTemplates) {
  std::vector<Placeholder> p;
  EXPECT_TRUE(CheckTemplate("a {b:f1} [[c {d}]]", &p).ok());
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].name, "b");
  EXPECT_EQ(p[0].format, "f1");
  for (const char* bad :
       {"{", "a }", "{}", "{x:f9}", "{x:pct}", "[[a", "a]]", "[[ [[a]] ]]", "{a b}"}) {
    EXPECT_FALSE(CheckTemplate(bad, &p).ok()) << bad;
  }
  EXPECT_NE(CheckTemplate("ok {x:bad}", &p).message().find("column 4"), std::string::npos);
}

constexpr char kThresholds[] = R"(# comment
exposed_comm_normal  0.10  share  step  methodology §3
exposed_comm_examine  0.20  share  step  methodology §3
device_free_normal  0.03  share  step  m
dominant_operator  0.30  share  kernel-time  m
pipe_operator_min_share  0.10  share  kernel-time  m
pipe_top_operators  5  count  none  m
pipe_busy  0.6  ratio  none  m
pipe_low  0.3  ratio  none  m
fingerprint_min_instances  2  count  none  m
straggler_gain_cap_pct  20  pct  step  m
skew_wait_pct  4  pct  step  m
skew_residual_pct  2.3  pct  step  m
skew_min_gain_pct  1  pct  step  m
pseudo_overlap_pct  2  pct  step  m
pseudo_overlap_min_count  2  count  none  m
pseudo_overlap_min_share  0.5  share  all-gathers  m
slow_link_ratio  0.2  share  transport-mean  m
slow_link_min_mb  1  mb  none  m
fragmented_min_slices  16  count  none  m
fragmented_min_share  0.5  share  communication-time  m
comm_resume_us  50  us  none  m
pseudo_overlap_min_idle_us  20  us  none  m
small_collective_ms  1  ms  none  m
small_collective_kb  50  kb  none  m
straggler_min_flag_share  0.2  share  instances  m
straggler_min_instances  3  count  none  m
straggler_min_last_share  0.5  share  instances  m
straggler_chance_p  0.01  share  none  m
compare_same_pct  1  pct  step  m
replay_max_error_pct  10  pct  step  m
straggler_min_lateness_us  20  us  none  m
straggler_min_step_share  0.5  share  steps  m
straggler_start_late_pct  5  pct  step  m
stage_imbalance_pct  5  pct  step  m
input_idle_normal  0.03  share  step  m
dynamic_shape_min_share  0.5  share  kernel-time  m
online_compile_pct  3  pct  step  m
matmul_yardstick_min_share  0.05  share  matmul-time  m
slow_matmul_min_share  0.05  share  matmul-time  m
slow_matmul_relative  0.5  ratio  none  m
slow_matmul_min_gain_pct  1  pct  step  m
fragmentation_min_gap_share  0.1  share  reserved-memory  m
memory_peak_holder_share  0.25  share  allocated-peak  m
oom_headroom_share  0.1  share  device-capacity  m
memory_imbalance_share  0.2  share  median-peak  m
health_window  10  count  records  m
loss_spike_z  3.5  factor  loss-rise-mad  m
loss_spike_min_rise  0.1  share  previous-loss  m
grad_explosion_ratio  100  factor  grad-norm-median  m
hang_ratio  10  factor  step  m
throughput_drop_share  0.1  share  throughput  m
step_time_drift_share  0.1  share  step  m
slow_warmup_share  0.2  share  step  m
slow_warmup_min_records  2  count  records  m
periodic_spike_share  0.3  share  step  m
periodic_min_spikes  3  count  spikes  m
mfu_mismatch_share  0.15  share  mfu  m
loss_early_rise_share  0.25  share  running-min-loss  m
loss_divergence_share  0.2  share  window-median-loss  m
overflow_skip_share  0.05  share  steps  m
overflow_min_skips  16  count  skipped-steps  m
rank_outlier_share  0.1  share  ranks-median  m
judge_min_kernels  8  count  none  m
)";

Status ParseWith(const std::string& findings, const std::string& thresholds = kThresholds) {
  return FindingCatalog::Parse(findings, "f.tsv", thresholds, "t.tsv").status();
}

TEST(FindingCatalog, ParsesAndChecksPlaceholders) {
  const std::string ok =
      "# x\n"
      "demo  values  share op\n"
      "demo  thresholds  exposed_comm_normal\n"
      "demo  title  {op} above {threshold.exposed_comm_normal:pct0}%\n"
      "demo  title@big  {op} far above\n";
  auto c = FindingCatalog::Parse(ok, "f.tsv", kThresholds, "t.tsv");
  ASSERT_TRUE(c.ok()) << c.status().message();
  Finding f;
  f.id = "demo";
  f.text_labels = {{"op", "Mul"}};
  EXPECT_TRUE(c->Render(&f).empty());
  EXPECT_EQ(f.title, "Mul above 10%");
  f.variant = "big";
  c->Render(&f);
  EXPECT_EQ(f.title, "Mul far above");

  auto error = [&](const std::string& findings) { return ParseWith(findings).message(); };
  EXPECT_EQ(error("demo  values  a\ndemo  title  {b}\n")
                .rfind("f.tsv:2: demo title: unknown "
                       "placeholder '{b}'",
                       0),
            0u);
  EXPECT_NE(error("demo  values  a\n\ndemo  title  {a:f7}\n").find("f.tsv:3: demo title: column 1"),
            std::string::npos);
  EXPECT_NE(error("demo  values  a\ndemo  title  {threshold.nope}\n").find("unknown placeholder"),
            std::string::npos);
  EXPECT_NE(error("demo  thresholds  nope\n").find("f.tsv:1: demo uses unknown threshold 'nope'"),
            std::string::npos);
  EXPECT_NE(error("#\ndemo  colour  x\n").find("f.tsv:2: part 'colour'"), std::string::npos);
  EXPECT_NE(error("demo  title\n").find("f.tsv:1: a findings row has 3 columns"),
            std::string::npos);
  EXPECT_NE(error("a  title  x\nb  title  y\na  remedy  z\n").find("f.tsv:3: rows of 'a'"),
            std::string::npos);
}

// A remedy names the switches of the job's platform: PART:PLATFORM before
// PART:gpu (any GPU) before PART, each after the variant's own.
TEST(FindingCatalog, PartsResolveByVariantThenPlatform) {
  const std::string table =
      "demo  values  op\n"
      "demo  remedy  generic\n"
      "demo  remedy:ascend  ascend\n"
      "demo  remedy:gpu  any gpu\n"
      "demo  remedy:rocm  rocm\n"
      "demo  remedy@big  big generic\n"
      "demo  remedy@big:cuda  big cuda\n";
  auto c = FindingCatalog::Parse(table, "f.tsv", kThresholds, "t.tsv");
  ASSERT_TRUE(c.ok()) << c.status().message();
  auto remedy = [&](std::string variant, model::Platform platform) {
    Finding f;
    f.id = "demo";
    f.variant = std::move(variant);
    c->Render(&f, {}, platform);
    return f.remedy;
  };
  using model::Platform;
  EXPECT_EQ(remedy("", Platform::kUnknown), "generic");
  EXPECT_EQ(remedy("", Platform::kAscend), "ascend");
  EXPECT_EQ(remedy("", Platform::kCuda), "any gpu");
  EXPECT_EQ(remedy("", Platform::kGpu), "any gpu");
  EXPECT_EQ(remedy("", Platform::kRocm), "rocm");
  EXPECT_EQ(remedy("big", Platform::kCuda), "big cuda");
  EXPECT_EQ(remedy("big", Platform::kRocm), "big generic");  // the variant first
  EXPECT_EQ(remedy("big", Platform::kAscend), "big generic");
  EXPECT_NE(ParseWith("demo  remedy:tpu  x\n").message().find("platform 'tpu'"), std::string::npos);
}

// The texts for every platform name no platform's own switches: those go in
// PART:ascend / PART:gpu (data/findings.tsv).
TEST(FindingCatalog, TextsForEveryPlatformNameNoPlatformsSwitches) {
  const std::vector<std::string_view> own = {"TASK_QUEUE_ENABLE", "CPU_AFFINITY_CONF", "npu_",
                                             "torch_npu",         "hccn_tool",         "HCCL_",
                                             "CUDA graph",        "nvidia-smi",        "NCCL_"};
  size_t parts = 0;
  for (const FindingEntry& e : FindingCatalog::Builtin().entries()) {
    for (const auto& [part, text] : e.parts) {
      if (part.find(':') != std::string::npos) continue;
      ++parts;
      for (std::string_view word : own) {
        EXPECT_EQ(text.find(word), std::string::npos) << e.id << " " << part << ": " << word;
      }
    }
  }
  EXPECT_GT(parts, 30u);
}

TEST(FindingCatalog, ThresholdErrorsNameFileAndLine) {
  std::string t = kThresholds;
  auto error = [](const std::string& thresholds) { return ParseWith("", thresholds).message(); };
  // The appended row is the line after the last one of kThresholds.
  const std::string next = fmt::format("t.tsv:{}:", std::count(t.begin(), t.end(), '\n') + 1);
  EXPECT_NE(error(t + "bogus  1  pct  step  m\n").find(next + " unknown threshold key 'bogus'"),
            std::string::npos);
  EXPECT_NE(error(t + "skew_wait_pct  2  pct  step  m\n").find(next + " 'skew_wait_pct' set twice"),
            std::string::npos);
  EXPECT_NE(
      error(t + "small_collective_ms  -1  ms  none  m\n").find(next + " value -1 out of range"),
      std::string::npos);
  EXPECT_NE(error("skew_wait_pct  x  pct  step  m\n").find("t.tsv:1: 'x' is not a number"),
            std::string::npos);
  EXPECT_NE(error("skew_wait_pct  400  pct  step  m\n").find("t.tsv:1: value 400 out of range"),
            std::string::npos);
  EXPECT_NE(error("skew_wait_pct  4  seconds  step  m\n").find("t.tsv:1: unit 'seconds'"),
            std::string::npos);
  EXPECT_NE(error("skew_wait_pct  4  pct  step  m\n").find("t.tsv: threshold '"),
            std::string::npos);
}

TEST(FindingCatalog, BuiltinLoadsAndEveryIdHasItsTexts) {
  auto parsed = FindingCatalog::Parse(
      // The same bytes Builtin() parses, re-read to see the error if any.
      "", "f", "", "t");
  EXPECT_FALSE(parsed.ok());  // no thresholds at all: each one is required
  const FindingCatalog& c = FindingCatalog::Builtin();
  ASSERT_GE(c.entries().size(), 11u) << "data/findings.tsv failed to load";
  for (const FindingEntry& e : c.entries()) {
    SCOPED_TRACE(e.id);
    if (e.id.front() == '_') continue;
    for (const char* part : {"title", "evidence", "remedy", "gain"})
      EXPECT_FALSE(e.Part(part).empty()) << part;
    // A finding decides with a threshold, except the environment checks,
    // which decide on a setting the run was made with.
    // Likewise the log findings that decide on an event the log prints (a
    // NaN, an error line), not on a number against a bar.
    const bool setting = e.id == "launch-blocking" || e.id == "verbose-logging" ||
                         e.id == "nan-inf" || e.id == "device-oom" ||
                         e.id == "collective-timeout" || e.id == "segfault" ||
                         e.id == "time-limit" || e.id == "killed-by-signal" ||
                         e.id == "python-traceback" || e.id == "worker-failed";
    EXPECT_NE(e.thresholds.empty(), !setting);
    for (const std::string& key : e.thresholds) {
      const ThresholdInfo* t = c.FindThreshold(key);
      ASSERT_NE(t, nullptr) << key;
      EXPECT_FALSE(t->origin.empty()) << key;
    }
  }
  // Every threshold has an origin and is used by some id.
  for (const ThresholdInfo& t : c.threshold_info()) {
    EXPECT_FALSE(t.origin.empty()) << t.key;
    bool used = false;
    for (const FindingEntry& e : c.entries()) {
      for (const std::string& key : e.thresholds) used = used || key == t.key;
    }
    EXPECT_TRUE(used) << t.key;
    // A threshold on a time is relative to the step; the only absolute
    // times and sizes are hardware latencies, relative to nothing.
    const bool absolute = t.unit == "us" || t.unit == "ms" || t.unit == "kb" || t.unit == "mb";
    EXPECT_TRUE(absolute || t.unit == "share" || t.unit == "pct" || t.unit == "ratio" ||
                t.unit == "count" || t.unit == "factor")
        << t.key;
    if (absolute) {
      EXPECT_EQ(t.relative_to, "none") << t.key;
    }
  }
}

// docs/findings.md lists every id and every threshold (with its origin).
TEST(FindingCatalog, DocsListEveryIdAndThreshold) {
  const std::string doc = testing::ReadFileBytes(testing::SourceDir() + "/docs/findings.md");
  ASSERT_FALSE(doc.empty());
  const FindingCatalog& c = FindingCatalog::Builtin();
  for (const FindingEntry& e : c.entries()) {
    if (e.id.front() == '_') continue;
    EXPECT_NE(doc.find("| `" + e.id + "` |"), std::string::npos) << e.id;
  }
  for (const ThresholdInfo& t : c.threshold_info()) {
    EXPECT_NE(doc.find("| `" + t.key + "` | "), std::string::npos) << t.key;
    EXPECT_NE(doc.find(t.origin), std::string::npos) << t.key;
  }
}

// docs/json-schema.md's list of stable finding ids is exactly the ids of
// data/findings.tsv (less "_" internal entries and "fingerprint", the
// shared texts of every fingerprint finding) and of data/fingerprints.tsv.
TEST(FindingCatalog, JsonSchemaListsEveryId) {
  const std::string doc = testing::ReadFileBytes(testing::SourceDir() + "/docs/json-schema.md");
  const size_t from = doc.find("// stable ids");
  const size_t to = doc.find("\"title\":", from);
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  // The list: comment text after the colon, ids split on ',' and spaces,
  // up to the closing "(...)" reference.
  const std::string block = doc.substr(from, to - from);
  std::set<std::string> listed;
  std::string word;
  bool in_list = false;
  for (size_t i = block.find("):") + 2; i < block.size(); ++i) {
    const char c = block[i];
    if (c == '(') break;
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-') {
      word += c;
      continue;
    }
    if (!word.empty()) listed.insert(word);
    in_list = in_list || !word.empty();
    word.clear();
  }
  ASSERT_TRUE(in_list);
  std::set<std::string> known;
  for (const FindingEntry& e : FindingCatalog::Builtin().entries()) {
    if (e.id.front() != '_' && e.id != "fingerprint") known.insert(e.id);
  }
  for (const Fingerprint& f : FingerprintLibrary::Builtin().fingerprints()) known.insert(f.id);
  for (const std::string& id : known) EXPECT_TRUE(listed.count(id)) << id << " not listed";
  for (const std::string& id : listed) EXPECT_TRUE(known.count(id)) << id << " is no finding id";
}

TEST(FindingCatalog, OverrideThresholds) {
  FindingCatalog c = FindingCatalog::Builtin();
  ASSERT_TRUE(
      c.OverrideThresholds("# mine\nexposed_comm_normal  0.05\nskew_wait_pct  6  pct\n", "mine.tsv")
          .ok());
  EXPECT_DOUBLE_EQ(c.thresholds().exposed_comm_normal, 0.05);
  EXPECT_DOUBLE_EQ(c.thresholds().skew_wait_pct, 6);
  EXPECT_EQ(c.FindThreshold("skew_wait_pct")->source, "mine.tsv:3");
  EXPECT_DOUBLE_EQ(FindingCatalog::Builtin().thresholds().exposed_comm_normal, 0.10);
  auto error = [&](const char* text) { return c.OverrideThresholds(text, "mine.tsv").message(); };
  EXPECT_NE(error("\nnope  1\n").find("mine.tsv:2: unknown threshold key 'nope'"),
            std::string::npos);
  EXPECT_NE(error("\nnope  1\n").find("hint"), std::string::npos);
  EXPECT_NE(error("skew_wait_pct  4  share\n").find("mine.tsv:1: 'skew_wait_pct' is in unit 'pct'"),
            std::string::npos);
  EXPECT_NE(error("exposed_comm_normal  1.5\n").find("mine.tsv:1: value 1.5 out of range"),
            std::string::npos);
  EXPECT_NE(error("exposed_comm_normal\n").find("mine.tsv:1: a threshold row is"),
            std::string::npos);
}

// A thresholds override moves a verdict, and the text follows the numbers.
TEST(FindingCatalog, OverriddenThresholdChangesVerdictAndText) {
  RankAnalysis rank;
  rank.header.rank = 0;
  rank.selected_step = 3;
  StepDistribution step;
  step.step = 3;
  StepBudget budget;
  budget.budget.total_ns = 100'000'000;
  budget.budget.exposed_communication_ns = 8'000'000;  // 8% of the step
  budget.budget.communication_ns = 9'000'000;
  step.breakdown = budget;
  rank.steps.push_back(step);
  model::RankProfile profile;
  EXPECT_TRUE(RankThresholdFindings(rank, profile).empty());
  FindingCatalog strict = FindingCatalog::Builtin();
  ASSERT_TRUE(strict.OverrideThresholds("exposed_comm_normal  0.05\n", "s").ok());
  const auto findings = RankThresholdFindings(rank, profile, strict);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].title, "Exposed communication above the 5% normal band");
  EXPECT_NEAR(findings[0].estimated_gain_pct, 3.0, 1e-9);
  EXPECT_NE(findings[0].evidence.find("(5-20% watch band: <=5% normal, 5-20% watch"),
            std::string::npos)
      << findings[0].evidence;
}

// Every finding the detectors emit on a synth job with every fault planted
// (and on hand-made steps for the rules synth does not trigger) renders
// completely: no placeholder left, every catalogue id covered.
TEST(FindingCatalog, EveryIdRendersFromWhatItsDetectorEmits) {
  const FindingCatalog& catalog = FindingCatalog::Builtin();
  std::map<std::string, int> rendered;
  auto check = [&](const Finding& f) {
    SCOPED_TRACE(f.id);
    const FindingEntry* e = catalog.EntryFor(f.id);
    ASSERT_NE(e, nullptr);
    ++rendered[e->id];
    Finding again = f;
    EXPECT_EQ(catalog.Render(&again), std::vector<std::string>{});
    for (const std::string* text :
         {&f.title, &f.evidence, &f.root_cause, &f.remedy, &f.gain_model}) {
      EXPECT_EQ(text->find('{'), std::string::npos) << *text;
      EXPECT_FALSE(text->empty());
    }
    // What the detector provides is what the catalogue declares.
    for (const auto* list : {&f.evidence_values, &f.text_values}) {
      for (const auto& [name, value] : *list) {
        if (name.rfind("instances_", 0) == 0) continue;  // per fingerprint variant
        if (e->id == "fingerprint" && name != "step" && name != "span_pct" && name != "period_us") {
          continue;  // evidence_values beyond the sentence (throughput, launch overhead)
        }
        EXPECT_NE(std::find(e->values.begin(), e->values.end(), name), e->values.end()) << name;
      }
    }
    for (const auto& [name, text] : f.text_labels) {
      EXPECT_NE(std::find(e->values.begin(), e->values.end(), name), e->values.end()) << name;
    }
  };

  synth::SynthOptions o;
  o.ranks = 4;
  o.layers = 2;
  o.steps = 2;
  o.straggler_rank = 2;
  o.slow_link = true;
  const std::string dir = testing::MakeTempDir("catalog");
  ASSERT_TRUE(synth::WriteSynthJob(o, dir).ok());
  auto profiles = formats::LoadProfiles({dir}, 2);
  ASSERT_TRUE(profiles.ok());
  auto rules = FamilyRules::Merge({}, FamilyRules::Builtin());
  auto job = AnalyzeJob(profiles->profiles, rules, AnalysisOptions(), 2);
  ASSERT_TRUE(job.ok());
  for (const Finding& f : job->findings) check(f);
  // Without the straggler the skew and separate-stream waits are the
  // ranks' own (behind a straggler they are its cost).
  o.straggler_rank = -1;
  o.slow_link = false;
  const std::string dir2 = testing::MakeTempDir("catalog2");
  ASSERT_TRUE(synth::WriteSynthJob(o, dir2).ok());
  auto profiles2 = formats::LoadProfiles({dir2}, 2);
  ASSERT_TRUE(profiles2.ok());
  auto job2 = AnalyzeJob(profiles2->profiles, rules, AnalysisOptions(), 2);
  ASSERT_TRUE(job2.ok());
  for (const Finding& f : job2->findings) check(f);

  // The threshold rules on a step built to trip each of them.
  RankAnalysis rank;
  rank.header.rank = 1;
  rank.selected_step = 4;
  rank.timeline.step = 4;
  rank.timeline.step_start_idle_ns = 3'000'000;
  rank.timeline.step_start_waits_for = "rank 3";
  StepDistribution step;
  step.step = 4;
  StepBudget budget;
  budget.budget.total_ns = 100'000'000;
  budget.budget.exposed_communication_ns = 30'000'000;
  budget.budget.communication_ns = 40'000'000;
  budget.budget.idle_ns = 9'000'000;
  step.breakdown = budget;
  step.kernels.count = 500;
  step.kernels.total_time_ns = 60'000'000;
  step.kernels.span_ns = 100'000'000;
  OperatorStat op;
  op.op_type = "MatMulV3";
  op.family = "matmul/attention";
  op.count = 40;
  op.share_time = 0.6;
  op.total_ns = 36'000'000;  // a mean of 900 us
  step.top_operators.push_back(op);
  OperatorStat mul = op;
  mul.op_type = "Mul";
  mul.family = "elementwise";
  mul.share_time = 0.2;
  step.top_operators.push_back(mul);
  rank.steps.push_back(step);
  // AI Core pipe ratios: the matmul cube-bound, the Mul HBM-bound.
  model::RankProfile profile;
  for (int i = 0; i < 4; ++i) {
    model::DeviceEvent row;
    row.step = 4;
    const bool matmul = i % 2 == 0;
    row.op_type = profile.strings.Intern(matmul ? "MatMulV3" : "Mul");
    row.start_ns = i * 1000;
    row.duration_ns = 500;
    model::PmuMetrics pmu;
    pmu.aic_mac_ratio = matmul ? 0.8f : 0.1f;
    pmu.aic_mte2_ratio = matmul ? 0.3f : 0.7f;
    profile.device_events.Append(row, pmu);
  }
  for (const Finding& f : RankThresholdFindings(rank, profile)) check(f);
  budget.budget.exposed_communication_ns = 15'000'000;  // the "watch" band
  rank.steps[0].breakdown = budget;
  for (const Finding& f : RankThresholdFindings(rank, profile)) check(f);
  // The host waited for the device 40 times; 6 ms of device idle behind it.
  rank.steps[0].host_sync = HostSyncStats{40, 12, 9'000'000, 6'000'000};
  for (const Finding& f : RankThresholdFindings(rank, profile)) check(f);
  rank.steps[0].host_sync.reset();
  // The device idles behind the data loader (num_workers=0): 12 ms of a
  // 100 ms iteration, 5 ms of it inside the step's window; then with
  // worker processes.
  rank.steps[0].data_loader = InputBoundStats{2, 2, 30'000'000, 12'000'000, 5'000'000, 100'000'000};
  for (const Finding& f : RankThresholdFindings(rank, profile)) check(f);
  rank.steps[0].data_loader->single_process_calls = 0;
  for (const Finding& f : RankThresholdFindings(rank, profile)) check(f);
  rank.steps[0].data_loader.reset();
  // Matmuls with an unaligned inner axis: 30 of the step's 60 ms of kernels.
  {
    model::RankProfile shapes;
    model::DeviceEvent mm;
    mm.step = 4;
    mm.op_type = shapes.strings.Intern("MatMulV3");
    const StringId bf16 = shapes.strings.Intern("DT_BF16;DT_BF16");
    mm.tensors = shapes.device_events.InternTensors(
        {.input_shapes = shapes.strings.Intern("4096,1000;1000,4096"), .input_dtypes = bf16});
    mm.duration_ns = 30'000'000;
    shapes.device_events.Append(mm);
    for (const Finding& f : RankThresholdFindings(rank, shapes)) check(f);
    // A second matmul shape 4x faster per FLOP: the first is a slow shape.
    mm.tensors = shapes.device_events.InternTensors(
        {.input_shapes = shapes.strings.Intern("4096,1024;1024,4096"), .input_dtypes = bf16});
    mm.duration_ns = 3'750'000;
    mm.start_ns = 40'000'000;
    shapes.device_events.Append(mm);
    OperatorEfficiencyOptions options;
    options.yardstick_min_share = catalog.thresholds().matmul_yardstick_min_share;
    rank.steps[0].operator_efficiency = ComputeOperatorEfficiency(shapes, 4, options);
    for (const Finding& f : RankThresholdFindings(rank, shapes)) check(f);
    rank.steps[0].operator_efficiency.reset();
  }
  // Dynamic-shape kernels, and 12 ms of online operator compilation in the
  // 100 ms step (api_statistic.csv).
  {
    model::RankProfile dynamic;
    model::DeviceEvent k;
    k.step = 4;
    k.op_type = dynamic.strings.Intern("Conv2D");
    k.op_state = model::OpState::kDynamic;
    k.duration_ns = 5'000'000;
    dynamic.device_events.Append(k);
    dynamic.has_api_statistic = true;
    dynamic.api_statistic.push_back({"acl", "aclopCompileAndExecute", 12'000'000, 19});
    dynamic.api_statistic.push_back({"node", "launch", 4'000'000, 191});
    for (const Finding& f : RankThresholdFindings(rank, dynamic)) check(f);
  }
  // A reserved-minus-allocated gap of 2 GiB of 8 GiB at every sample, on two
  // stream pools; then with the allocator switches already set.
  {
    MemoryUsage memory;
    memory.peak_reserved_bytes = int64_t{8} << 30;
    memory.peak_allocated_bytes = int64_t{6} << 30;
    memory.gap_min_bytes = int64_t{2} << 30;
    memory.gap_mean_bytes = int64_t{3} << 30;
    memory.streams = {{"1", 10, 5, 0}, {"2", 3, 1, 0}};
    rank.steps[0].memory = memory;
    for (const Finding& f : RankThresholdFindings(rank, profile)) check(f);
    profile.info.env["PYTORCH_NPU_ALLOC_CONF"] = "expandable_segments:True";
    for (const Finding& f : RankThresholdFindings(rank, profile)) check(f);
    profile.info.env.clear();
    // One operator holds 3 of the 6 GiB allocated at the peak, with the
    // activation memory and the element-wise intermediates known; 0.5 GiB
    // left of a 10 GiB device (memory-peak with every remedy, oom-risk).
    memory.live_at_peak_bytes = int64_t{5} << 30;
    memory.top_holders = {{"aten::_log_softmax", int64_t{3} << 30, 2}};
    memory.activation_bytes = int64_t{4} << 30;
    memory.elementwise_live_at_peak_bytes = int64_t{1} << 30;
    memory.capacity_bytes = int64_t{17} << 29;
    memory.capacity_from = "device table: test";
    memory.headroom_bytes = *memory.capacity_bytes - *memory.peak_reserved_bytes;
    rank.steps[0].memory = memory;
    for (const Finding& f : RankThresholdFindings(rank, profile)) check(f);
    rank.steps[0].memory.reset();
  }
  // A run made with debugging switches and a tuned host dispatch.
  profile.info.env["ASCEND_LAUNCH_BLOCKING"] = "1";
  profile.info.env["ASCEND_GLOBAL_LOG_LEVEL"] = "1";
  profile.info.env["TASK_QUEUE_ENABLE"] = "2";
  for (const Finding& f : RankThresholdFindings(rank, profile)) check(f);
  profile.info.env.clear();
  // Send/receive between pipeline stages, in a Megatron layout.
  budget.budget.exposed_communication_ns = 45'000'000;
  rank.steps[0].breakdown = budget;
  rank.timeline.p2p_not_overlapped_ns = 20'000'000;
  profile.info.parallel_sizes["pipeline_model_parallel_size"] = 2;
  for (const Finding& f : RankThresholdFindings(rank, profile)) check(f);

  // Allocated peaks 4, 5 and 6 GiB on three ranks (memory-imbalance).
  std::vector<Finding> memory_findings;
  AddMemoryImbalance({{0, int64_t{4} << 30}, {1, int64_t{5} << 30}, {2, int64_t{6} << 30}},
                     catalog.thresholds(), &memory_findings);
  for (Finding& f : memory_findings) {
    catalog.Render(&f);
    check(f);
  }
  // Pipeline stages of unequal cost.
  std::vector<Finding> stage_findings;
  AddStageImbalance({{0, 0, 20'000'000, 100'000'000}, {1, 1, 40'000'000, 100'000'000}},
                    catalog.thresholds(), &stage_findings);
  for (Finding& f : stage_findings) {
    catalog.Render(&f);
    check(f);
  }

  // Communication in many small slices (synth buckets its collectives).
  ClusterAnalysis cluster;
  cluster.present = true;
  cluster.ranks = 2;
  cluster.step = 5;
  cluster.mean_step_time_ns = 100'000'000;
  for (int32_t r = 0; r < 2; ++r) {
    RankClusterStats stats;
    stats.rank = r;
    stats.small_collectives = 40;
    stats.small_comm_ns = 8'000'000;
    stats.comm_ns = 10'000'000;
    stats.exposed_comm_ns = 5'000'000;
    cluster.per_rank.push_back(stats);
  }
  std::vector<Finding> cluster_findings;
  AddClusterFindings(cluster, &cluster_findings);
  for (const Finding& f : cluster_findings) check(f);

  // The training-log findings (trainscope health): the planted Megatron
  // fixture, and a log whose throughput falls and whose process crashes.
  std::string dropping;
  for (int i = 1; i <= 12; ++i) {
    dropping += fmt::format("step={} loss=2.0 tps={}\n", i, i <= 6 ? 1000 : 700);
  }
  dropping += "Fatal Python error: Segmentation fault\n";
  // How a run ends (Slurm, torchrun), an early loss spike and a rising
  // loss, each in a series of its own.
  std::string ended;
  for (int i = 1; i <= 30; ++i) {
    ended += fmt::format("step={} loss={}\n", i, i == 3 ? 40.0 : 10.0 + 0.5 * i);
  }
  ended +=
      "slurmstepd: error: *** JOB 7 ON n1 CANCELLED AT 2024-05-01T10:00:00 DUE TO TIME "
      "LIMIT ***\n";
  ended += "W0501 10:00:01 api.py:897] Sending process 42 closing signal SIGTERM\n";
  ended += "Traceback (most recent call last):\n";
  ended += "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n";
  auto finished = formats::ReadTrainingLogBytes(ended, false, "ended.log");
  ASSERT_TRUE(finished.ok());
  auto planted =
      formats::ReadTrainingLogFile(testing::SourceDir() + "/tests/data/logs/megatron_planted.log");
  ASSERT_TRUE(planted.ok());
  auto crashed = formats::ReadTrainingLogBytes(dropping, false, "drop.log");
  ASSERT_TRUE(crashed.ok());
  auto drifting = formats::ReadTrainingLogFile(testing::SourceDir() +
                                               "/tests/data/logs/megatron_steptime_drift.log");
  ASSERT_TRUE(drifting.ok());
  auto periodic = formats::ReadTrainingLogFile(testing::SourceDir() +
                                               "/tests/data/logs/megatron_steptime_periodic.log");
  ASSERT_TRUE(periodic.ok());
  auto titan =
      formats::ReadTrainingLogFile(testing::SourceDir() + "/tests/data/logs/torchtitan_clean.log");
  ASSERT_TRUE(titan.ok());
  analysis::ModelSpec too_big;  // twice the FLOPs the log's MFU implies
  too_big.params = 16e9;
  too_big.device = "h100";
  // DeepSpeed's loss scaler skipping a step at every one of 30 (fp16-overflows).
  std::string overflowing;
  for (int i = 1; i <= 30; ++i) {
    overflowing +=
        "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 2, reducing to 1\n";
    overflowing += fmt::format("epoch: 0|step: {}|ppo_ep: 1|act_loss: 0.5|cri_loss: 0.2\n", i);
  }
  auto overflowed = formats::ReadTrainingLogBytes(overflowing, false, "overflow.log");
  ASSERT_TRUE(overflowed.ok());
  // Three ranks, one 50% slower (rank-outlier).
  std::vector<RunHealth> ranks(3);
  std::vector<RunHealth*> rank_ptrs;
  for (int r = 0; r < 3; ++r) {
    ranks[r].rank = r;
    ranks[r].step_ms.count = 10;
    ranks[r].step_ms.median = r == 2 ? 1500.0 : 1000.0;
    rank_ptrs.push_back(&ranks[r]);
  }
  analysis::FindRankOutliers(rank_ptrs, catalog.thresholds());
  for (RunHealth& r : ranks) {
    RenderFindings(catalog, &r.findings, model::Platform::kUnknown);
    for (const Finding& f : r.findings) check(f);
  }
  for (const auto* log : {&planted->log, &crashed->log, &drifting->log, &periodic->log, &titan->log,
                          &finished->log, &overflowed->log}) {
    RunHealth health =
        AnalyzeTrainingLog(*log, catalog.thresholds(), log == &titan->log ? &too_big : nullptr);
    RenderFindings(catalog, &health.findings, model::Platform::kUnknown);
    for (const Finding& f : health.findings) check(f);
  }

  for (const FindingEntry& e : catalog.entries()) {
    if (e.id.front() == '_') continue;
    EXPECT_GT(rendered[e.id], 0) << e.id << " never emitted";
  }
}

}  // namespace
}  // namespace trainscope::analysis
