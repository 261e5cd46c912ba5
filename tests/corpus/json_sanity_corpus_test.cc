// Every corpus profile through `analyze --json -`: the numbers of the JSON
// are sane on inputs the tool was not built against.
// - every number is finite;
// - every share (`share*`, `*_share`) is in [0, 1];
// - every gain (`*gain*_pct`) is in [0, 100], and the combined projection
//   leaves between 0 and the whole step;
// - kernels.count counts kernels: compute_count + communication_count;
// - every numeric field name follows the schema's unit rule (`*_us`, `*_ms`,
//   `*_ns`, shares) or is named in docs/json-schema.md (evidence_values keys:
//   in docs/findings.md, where each finding's values are listed);
// - remedies fit the platform (platform_remedy_check.h).
// One sweep runs the binary once an input for all of these: under the
// sanitizers a pass over the corpus is the slowest thing CI does (~45 s).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "corpus/corpus_inputs.h"
#include "corpus/platform_remedy_check.h"
#include "golden/cli_test_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

namespace fs = std::filesystem;

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool StartsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// Every identifier-like word of a document.
std::set<std::string> Words(const std::string& text) {
  std::set<std::string> words;
  std::string word;
  for (char c : text + " ") {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      word += c;
    } else if (!word.empty()) {
      words.insert(word);
      word.clear();
    }
  }
  return words;
}

struct Checker {
  const std::set<std::string>& schema_words;
  const std::set<std::string>& findings_words;
  std::vector<std::string> problems;

  void Problem(const std::string& path, const std::string& what) {
    if (problems.size() < 40) problems.push_back(path + ": " + what);
  }

  // |key| is the name the number is under (an array's items: the array's).
  void Number(const std::string& path, const std::string& key, double value, bool evidence) {
    if (!std::isfinite(value)) Problem(path, "not finite");
    const bool percent = EndsWith(key, "_pct");
    const bool share = StartsWith(key, "share") || EndsWith(key, "_share");
    // A share named in percent (share_of_kernel_time_pct) is in [0, 100].
    const double share_max = percent ? 100 : 1;
    if (share && (value < 0 || value > share_max))
      Problem(path,
              "share outside [0, " + std::to_string(share_max) + "]: " + std::to_string(value));
    // Step-time savings; throughput_gain_pct (step / projected step - 1) is
    // a speed-up, not a share of the step, and has no upper bound.
    const bool gain = EndsWith(key, "gain_pct") && key != "throughput_gain_pct";
    if (gain && (value < 0 || value > 100))
      Problem(path, "gain outside [0, 100]: " + std::to_string(value));
    if (key == "throughput_gain_pct" && value < 0) Problem(path, "negative speed-up");
    const bool unit =
        EndsWith(key, "_us") || EndsWith(key, "_ms") || EndsWith(key, "_ns") || percent;
    // instances_VARIANT: a fingerprint's instances per variant (fwd, bwd, ...).
    const bool per_variant =
        evidence && StartsWith(key, "instances_") && findings_words.count("instances_VARIANT") > 0;
    const bool documented =
        schema_words.count(key) > 0 || (evidence && findings_words.count(key) > 0) || per_variant;
    if (!unit && !share && !documented)
      Problem(path, "numeric field '" + key + "' has no unit suffix and is not documented");
  }

  void Walk(simdjson::dom::element e, const std::string& path, const std::string& key,
            bool evidence) {
    switch (e.type()) {
      case simdjson::dom::element_type::OBJECT:
        for (auto field : e.get_object()) {
          const std::string name(field.key);
          // Keys of these maps are reasons (data), their values row counts.
          const bool by_reason = key == "skipped_by_reason" || key == "notes_by_reason";
          Walk(field.value, path + "." + name, by_reason ? key : name,
               evidence || name == "evidence_values");
        }
        break;
      case simdjson::dom::element_type::ARRAY: {
        size_t i = 0;
        for (auto item : e.get_array())
          Walk(item, path + "[" + std::to_string(i++) + "]", key, evidence);
        break;
      }
      case simdjson::dom::element_type::INT64:
      case simdjson::dom::element_type::UINT64:
      case simdjson::dom::element_type::DOUBLE:
        Number(path, key, double(e), evidence);
        break;
      default:
        break;
    }
  }
};

void CheckProjection(simdjson::dom::element doc, Checker* checker) {
  simdjson::dom::element p;
  if (doc["projection"].get(p) != simdjson::SUCCESS) {
    checker->Problem("projection", "missing");
    return;
  }
  double step = 0, projected = 0;
  if (p["step_time_us"].get(step) == simdjson::SUCCESS &&
      p["projected_step_time_us"].get(projected) == simdjson::SUCCESS) {
    if (projected < 0 || projected > step)
      checker->Problem("projection", "projected step outside [0, step]");
  }
}

void CheckKernelCounts(simdjson::dom::element doc, Checker* checker) {
  simdjson::dom::array ranks;
  if (doc["ranks"].get(ranks) != simdjson::SUCCESS) return;
  for (simdjson::dom::element rank : ranks) {
    simdjson::dom::array steps;
    if (rank["steps"].get(steps) != simdjson::SUCCESS) continue;
    for (simdjson::dom::element step : steps) {
      int64_t count = 0, compute = 0, communication = 0;
      // Unknown (a rank without any source of device events): all three
      // null together, never 0.
      const simdjson::dom::element k = step["kernels"];
      if (k["count"].is_null() || k["compute_count"].is_null() ||
          k["communication_count"].is_null()) {
        if (!(k["count"].is_null() && k["compute_count"].is_null() &&
              k["communication_count"].is_null()))
          checker->Problem("kernels", "count fields partly null");
        continue;
      }
      if (step["kernels"]["count"].get(count) != simdjson::SUCCESS ||
          step["kernels"]["compute_count"].get(compute) != simdjson::SUCCESS ||
          step["kernels"]["communication_count"].get(communication) != simdjson::SUCCESS) {
        checker->Problem("kernels", "count fields missing");
        continue;
      }
      if (count != compute + communication)
        checker->Problem("kernels", "count is not compute_count + communication_count");
    }
  }
}

TEST(CorpusJsonSweep, SaneNumbersAndRemediesOfItsPlatformOnEveryProfile) {
  TS_REQUIRE_CORPUS("kineto");
  const std::set<std::string> schema_words =
      Words(ReadFileBytes(SourceDir() + "/docs/json-schema.md"));
  const std::set<std::string> findings_words =
      Words(ReadFileBytes(SourceDir() + "/docs/findings.md"));
  ASSERT_FALSE(schema_words.empty());
  ASSERT_FALSE(findings_words.empty());
  const std::vector<std::string> inputs = CorpusInputs(corpus_path);
  ASSERT_GT(inputs.size(), 20u);
  size_t analysed = 0;
  RemedyCounts remedies;
  for (const std::string& input : inputs) {
    SCOPED_TRACE(input);
    const CommandResult r = RunTrainscope({"analyze", input, "--json", "-", "--threads", "2"});
    if (r.exit_code == 2) {
      // Inputs the tool declines (the .db export, a folder with no profile)
      // are refused with a reason and a hint, never half-analysed.
      EXPECT_NE(r.err.find("hint:"), std::string::npos) << r.err;
      EXPECT_TRUE(r.out.empty());
      continue;
    }
    ASSERT_EQ(r.exit_code, 0) << r.err;
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out.substr(0, 200);
    Checker checker{schema_words, findings_words, {}};
    checker.Walk(doc, "$", "", false);
    CheckProjection(doc, &checker);
    CheckKernelCounts(doc, &checker);
    std::string all;
    for (const std::string& p : checker.problems) all += "\n  " + p;
    EXPECT_TRUE(checker.problems.empty()) << all;
    CheckPlatformRemedies(input, doc, &remedies);
    ++analysed;
  }
  std::printf("json sanity: %zu of %zu corpus inputs analysed\n", analysed, inputs.size());
  EXPECT_GE(analysed, inputs.size() - 2);  // the .db export and the msprof-analyze test data
  // Both kinds of jobs have findings to check, or the remedy check proves nothing.
  EXPECT_GT(remedies.gpu_findings, 10u);
  EXPECT_GT(remedies.ascend_findings, 5u);
}

}  // namespace
}  // namespace trainscope::testing
