// End-to-end tests of the real binary: golden terminal and JSON output on a
// hand-made two-rank fixture, exit codes and messages on bad input.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>

#include "golden/cli_test_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

TEST(GoldenCliTest, TerminalSummaryOfTheTinyJob) {
  CommandResult result = RunTrainscope({"analyze", TinyJob(), "--no-color"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(CompareGolden("ascend_tiny.txt", NormalizePaths(result.out)), "");
}

TEST(GoldenCliTest, JsonOfTheTinyJob) {
  CommandResult result = RunTrainscope({"analyze", TinyJob(), "--json", "-"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(CompareGolden("ascend_tiny.json", NormalizePaths(result.out)), "");
}

TEST(GoldenCliTest, JsonHasTheGuaranteedFields) {
  CommandResult result = RunTrainscope({"analyze", TinyJob(), "--json", "-"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(result.out).get(doc), simdjson::SUCCESS);
  std::string_view schema;
  ASSERT_EQ(doc["schema"].get(schema), simdjson::SUCCESS);
  EXPECT_EQ(schema, "trainscope.analysis/3");
  simdjson::dom::array ranks;
  ASSERT_EQ(doc["ranks"].get(ranks), simdjson::SUCCESS);
  ASSERT_EQ(ranks.size(), 2u);
  int64_t expected_rank = 0;
  for (simdjson::dom::element rank : ranks) {
    int64_t rank_id = -1;
    ASSERT_EQ(rank["rank"].get(rank_id), simdjson::SUCCESS);
    EXPECT_EQ(rank_id, expected_rank++);
    int64_t selected = 0;
    ASSERT_EQ(rank["selected_step"].get(selected), simdjson::SUCCESS);
    EXPECT_EQ(selected, 6);  // steps 5 and 6: 5 is warm-up
    simdjson::dom::array steps;
    ASSERT_EQ(rank["steps"].get(steps), simdjson::SUCCESS);
    ASSERT_EQ(steps.size(), 2u);  // every step, not only the selected one
    for (simdjson::dom::element step : steps) {
      int64_t number = 0, count = 0;
      ASSERT_EQ(step["step"].get(number), simdjson::SUCCESS);
      ASSERT_EQ(step["kernels"]["count"].get(count), simdjson::SUCCESS);
      EXPECT_EQ(count, 25);  // 1 all-reduce + 3 x 8 kernels
      for (const char* field :
           {"span_us", "p50_us", "p90_us", "p99_us", "share_le_50us", "share_le_100us"}) {
        double value = -1;
        EXPECT_EQ(step["kernels"][field].get(value), simdjson::SUCCESS) << field;
        EXPECT_GE(value, 0) << field;
      }
      simdjson::dom::array families;
      ASSERT_EQ(step["families"].get(families), simdjson::SUCCESS);
      int64_t family_total = 0;
      for (simdjson::dom::element family : families) {
        std::string_view name;
        int64_t family_count = 0;
        double total_us = -1;
        EXPECT_EQ(family["name"].get(name), simdjson::SUCCESS);
        EXPECT_EQ(family["count"].get(family_count), simdjson::SUCCESS);
        EXPECT_EQ(family["total_us"].get(total_us), simdjson::SUCCESS);
        family_total += family_count;
      }
      EXPECT_EQ(family_total, count);
    }
  }
}

TEST(GoldenCliTest, DamagedRowsAreCountedNotLost) {
  CommandResult result = RunTrainscope({"analyze", TinyJob() + "/rank_0_ascend_pt", "--json", "-"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(result.out).get(doc), simdjson::SUCCESS);
  simdjson::dom::array files;
  ASSERT_EQ(doc["ranks"].at(0)["ingest"]["files"].get(files), simdjson::SUCCESS);
  bool found = false;
  for (simdjson::dom::element file : files) {
    std::string_view name;
    ASSERT_EQ(file["file"].get(name), simdjson::SUCCESS);
    if (name.find("kernel_details.csv") == std::string_view::npos) continue;
    found = true;
    int64_t read = 0, used = 0, skipped = 0;
    ASSERT_EQ(file["rows_read"].get(read), simdjson::SUCCESS);
    ASSERT_EQ(file["rows_used"].get(used), simdjson::SUCCESS);
    ASSERT_EQ(file["rows_skipped"].get(skipped), simdjson::SUCCESS);
    EXPECT_EQ(read, 52);
    EXPECT_EQ(used, 50);
    EXPECT_EQ(skipped, 2);
    EXPECT_EQ(read, used + skipped);
  }
  EXPECT_TRUE(found);
}

TEST(GoldenCliTest, ExplicitStepIsHonouredAndAMissingStepIsAnError) {
  CommandResult five = RunTrainscope({"analyze", TinyJob(), "--step", "5", "--json", "-"});
  ASSERT_EQ(five.exit_code, 0) << five.err;
  EXPECT_NE(five.out.find("\"selected_step\": 5"), std::string::npos);
  CommandResult missing = RunTrainscope({"analyze", TinyJob(), "--step", "99"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("step 99 is not in the profile"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("hint"), std::string::npos) << missing.err;
}

TEST(GoldenCliTest, UnusableInputExitsWithTwoAndAHint) {
  CommandResult absent = RunTrainscope({"analyze", "/nonexistent/trainscope/path"});
  EXPECT_EQ(absent.exit_code, 2);
  EXPECT_NE(absent.err.find("/nonexistent/trainscope/path"), std::string::npos) << absent.err;

  std::string dir = MakeTempDir("garbage") + "/x_ascend_pt";
  std::filesystem::create_directories(dir + "/ASCEND_PROFILER_OUTPUT");
  std::ofstream(dir + "/ASCEND_PROFILER_OUTPUT/kernel_details.csv", std::ios::binary)
      << std::string(
             "\x7f"
             "ELF\x02\x01\x01\0\0\0binary garbage\xff\xfe",
             27);
  CommandResult garbage = RunTrainscope({"analyze", dir});
  EXPECT_EQ(garbage.exit_code, 2) << garbage.out;
  EXPECT_NE(garbage.err.find("kernel_details.csv"), std::string::npos) << garbage.err;
  EXPECT_NE(garbage.err.find("hint"), std::string::npos) << garbage.err;

  std::ofstream(dir + "/ASCEND_PROFILER_OUTPUT/kernel_details.csv", std::ios::binary) << "";
  CommandResult empty = RunTrainscope({"analyze", dir});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("kernel_details.csv"), std::string::npos) << empty.err;

  CommandResult usage = RunTrainscope({"analyze"});
  EXPECT_EQ(usage.exit_code, 2);
  CommandResult bad_fused =
      RunTrainscope({"synth", "--out", MakeTempDir("s") + "/job", "--fused", "nope"});
  EXPECT_EQ(bad_fused.exit_code, 2);
  EXPECT_NE(bad_fused.err.find("unknown remedy"), std::string::npos);
}

TEST(GoldenCliTest, UserFamilyRulesOverrideTheBuiltinTable) {
  std::string rules = MakeTempDir("rules") + "/rules.tsv";
  std::ofstream(rules) << "my norm chain\ttype\tPows\nmy norm chain\ttype\tRsqrt\n";
  CommandResult result = RunTrainscope({"analyze", TinyJob(), "--families", rules, "--json", "-"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("\"name\": \"my norm chain\",\n              \"count\": 6"),
            std::string::npos);
}

}  // namespace
}  // namespace trainscope::testing

namespace trainscope::testing {
namespace {

// The fields docs/json-schema.md guarantees for the portrait, the cluster,
// motifs and the time budget, on a synth job where all of them have content.
TEST(GoldenCliTest, JsonHasThePortraitClusterMotifAndBreakdownFields) {
  std::string job = MakeTempDir("schema") + "/job";
  CommandResult synth = RunTrainscope({"synth", "--out", job, "--ranks", "2"});
  ASSERT_EQ(synth.exit_code, 0) << synth.err;
  CommandResult result = RunTrainscope({"analyze", job, "--json", "-"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(result.out).get(doc), simdjson::SUCCESS);

  simdjson::dom::array findings;
  ASSERT_EQ(doc["findings"].get(findings), simdjson::SUCCESS);
  ASSERT_GT(findings.size(), 0u);
  double previous_gain = 1e9;
  for (simdjson::dom::element finding : findings) {
    std::string_view id, evidence, remedy;
    simdjson::dom::array ranks;
    int64_t occurrences = 0;
    double gain = -1;
    EXPECT_EQ(finding["id"].get(id), simdjson::SUCCESS);
    EXPECT_EQ(finding["ranks"].get(ranks), simdjson::SUCCESS);
    EXPECT_EQ(finding["occurrences"].get(occurrences), simdjson::SUCCESS);
    EXPECT_EQ(finding["evidence"].get(evidence), simdjson::SUCCESS);
    EXPECT_EQ(finding["remedy"].get(remedy), simdjson::SUCCESS);
    ASSERT_EQ(finding["estimated_gain_pct"].get(gain), simdjson::SUCCESS);
    EXPECT_LE(gain, previous_gain) << "findings must be ranked by estimated gain";
    previous_gain = gain;
    EXPECT_FALSE(evidence.empty());
    EXPECT_FALSE(remedy.empty());
  }

  simdjson::dom::element cluster;
  ASSERT_EQ(doc["cluster"].get(cluster), simdjson::SUCCESS);
  int64_t cluster_ranks = 0;
  double spread = -1, skew = -1;
  simdjson::dom::array stragglers, per_rank;
  EXPECT_EQ(cluster["ranks"].get(cluster_ranks), simdjson::SUCCESS);
  EXPECT_EQ(cluster_ranks, 2);
  EXPECT_EQ(cluster["straggler_ranks"].get(stragglers), simdjson::SUCCESS);
  EXPECT_EQ(cluster["step_time_spread_pct"].get(spread), simdjson::SUCCESS);
  EXPECT_EQ(cluster["first_kernel_skew_us"].get(skew), simdjson::SUCCESS);
  ASSERT_EQ(cluster["per_rank"].get(per_rank), simdjson::SUCCESS);
  ASSERT_EQ(per_rank.size(), 2u);
  for (simdjson::dom::element rank : per_rank) {
    double offset = -1;
    EXPECT_EQ(rank["step_start_offset_us"].get(offset), simdjson::SUCCESS);
  }

  simdjson::dom::element step;
  ASSERT_EQ(doc["ranks"].at(0)["steps"].at(1).get(step), simdjson::SUCCESS);
  simdjson::dom::array motifs;
  ASSERT_EQ(step["motifs"].get(motifs), simdjson::SUCCESS);
  ASSERT_GT(motifs.size(), 0u);
  bool fingerprinted = false;
  for (simdjson::dom::element motif : motifs) {
    simdjson::dom::array kernels;
    int64_t occurrences = 0;
    double period = -1, total = -1;
    EXPECT_EQ(motif["kernels"].get(kernels), simdjson::SUCCESS);
    EXPECT_EQ(motif["occurrences"].get(occurrences), simdjson::SUCCESS);
    EXPECT_EQ(motif["period_us"].get(period), simdjson::SUCCESS);
    EXPECT_EQ(motif["total_us"].get(total), simdjson::SUCCESS);
    simdjson::dom::element fingerprint;
    ASSERT_EQ(motif["fingerprint"].get(fingerprint), simdjson::SUCCESS);
    fingerprinted |= fingerprint.is_string();
    // Mined chains have 3+ kernels; a fingerprint may be shorter (Silu, Mul).
    EXPECT_GE(kernels.size(), fingerprint.is_string() ? 2u : 3u);
  }
  EXPECT_TRUE(fingerprinted);
  simdjson::dom::element breakdown;
  ASSERT_EQ(step["breakdown"].get(breakdown), simdjson::SUCCESS);
  double total = 0, computation = 0, communication = 0, exposed = 0, idle = 0;
  EXPECT_EQ(breakdown["total_us"].get(total), simdjson::SUCCESS);
  EXPECT_EQ(breakdown["computation_us"].get(computation), simdjson::SUCCESS);
  EXPECT_EQ(breakdown["communication_us"].get(communication), simdjson::SUCCESS);
  EXPECT_EQ(breakdown["exposed_communication_us"].get(exposed), simdjson::SUCCESS);
  EXPECT_EQ(breakdown["idle_us"].get(idle), simdjson::SUCCESS);
  // Interval unions: compute + exposed comm + idle tile the window.
  EXPECT_NEAR(computation + exposed + idle, total, 0.01);

  // The zoom windows land on the repeating decomposed-norm chain (issue
  // "Pictures" acceptance): the narrowest window holds an RMSNorm instance.
  std::string_view centred_on;
  ASSERT_EQ(doc["ranks"].at(0)["timeline"]["zooms_centred_on"].get(centred_on), simdjson::SUCCESS);
  EXPECT_NE(centred_on.find("unfused-rmsnorm"), std::string_view::npos) << centred_on;
  simdjson::dom::array zooms;
  ASSERT_EQ(doc["ranks"].at(0)["timeline"]["zooms"].get(zooms), simdjson::SUCCESS);
  ASSERT_EQ(zooms.size(), 3u);
  simdjson::dom::array narrowest;
  ASSERT_EQ(zooms.at(2)["kernels"].get(narrowest), simdjson::SUCCESS);
  int casts = 0, reductions = 0;
  for (simdjson::dom::element kernel : narrowest) {
    std::string_view type;
    ASSERT_EQ(kernel["type"].get(type), simdjson::SUCCESS);
    casts += type == "Cast";
    reductions += type == "ReduceSum" || type == "ReduceMean";
  }
  EXPECT_GE(casts, 2);
  EXPECT_GE(reductions, 1);
}

}  // namespace
}  // namespace trainscope::testing
