// `trainscope compare` from the command line: the JSON fields
// docs/json-schema.md guarantees, the text verdict, and that it never
// writes over its inputs.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "golden/cli_test_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

// Two synth jobs, the second with every remedy (docs/synth.md); made once.
struct Twins {
  std::string base, fused;
};

const Twins& SynthTwins() {
  static const Twins twins = [] {
    const std::string dir = MakeTempDir("compare_cli");
    Twins t{dir + "/base", dir + "/fused"};
    EXPECT_EQ(RunTrainscope({"synth", "--out", t.base, "--ranks", "2", "--layers", "2"}).exit_code,
              0);
    EXPECT_EQ(RunTrainscope(
                  {"synth", "--out", t.fused, "--ranks", "2", "--layers", "2", "--fused", "all"})
                  .exit_code,
              0);
    return t;
  }();
  return twins;
}

TEST(CompareCli, JsonHasTheGuaranteedFields) {
  const Twins& t = SynthTwins();
  const CommandResult r = RunTrainscope({"compare", t.base, t.fused, "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out.substr(0, 200);
  std::string_view schema;
  ASSERT_EQ(doc["schema"].get(schema), simdjson::SUCCESS);
  EXPECT_EQ(schema, "trainscope.compare/2");
  int64_t rank = -1;
  EXPECT_EQ(doc["base"]["compared_rank"].get(rank), simdjson::SUCCESS);
  EXPECT_EQ(rank, 0);
  EXPECT_FALSE(doc["base"]["step"].is_null());
  EXPECT_FALSE(doc["new"]["platform"].error());
  bool kernels_seen = false;
  for (simdjson::dom::element v : doc["values"].get_array()) {
    std::string_view id;
    ASSERT_EQ(v["id"].get(id), simdjson::SUCCESS);
    for (const char* key : {"base", "new", "delta", "delta_pct"}) {
      EXPECT_FALSE(v[key].error()) << id << "." << key;
    }
    if (id == "kernels") {
      kernels_seen = true;
      double base = 0, next = 0;
      ASSERT_EQ(v["base"].get(base), simdjson::SUCCESS);
      ASSERT_EQ(v["new"].get(next), simdjson::SUCCESS);
      EXPECT_LT(next, base);  // every fusion removes kernels
    }
  }
  EXPECT_TRUE(kernels_seen);
  bool rmsnorm_gone = false;
  for (simdjson::dom::element f : doc["findings"].get_array()) {
    std::string_view id, state;
    ASSERT_EQ(f["id"].get(id), simdjson::SUCCESS);
    ASSERT_EQ(f["state"].get(state), simdjson::SUCCESS);
    rmsnorm_gone |= id == "unfused-rmsnorm" && state == "gone";
  }
  EXPECT_TRUE(rmsnorm_gone);
  for (simdjson::dom::element p : doc["predictions"].get_array()) {
    for (const char* key : {"id", "predicted_gain_pct", "measured_gain_pct"}) {
      EXPECT_FALSE(p[key].error()) << key;
    }
  }
  for (simdjson::dom::element op : doc["operators"].get_array()) {
    EXPECT_FALSE(op["name"].error());
    EXPECT_FALSE(op["state"].error());
  }
}

TEST(CompareCli, TextStartsWithTheVerdictAndHtmlIsWritten) {
  const Twins& t = SynthTwins();
  const std::string html = MakeTempDir("compare_html") + "/cmp.html";
  const CommandResult r = RunTrainscope({"compare", t.base, t.fused, "--no-color", "--html", html});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("verdict: NEW is "), std::string::npos) << r.out.substr(0, 400);
  EXPECT_NE(r.out.find("faster"), std::string::npos);
  EXPECT_NE(r.out.find("prediction check"), std::string::npos);
  std::ifstream in(html);
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(page.find("<svg"), std::string::npos);
  EXPECT_NE(page.find("Prediction check"), std::string::npos);
  EXPECT_NE(page.find("class=\"sortable\""), std::string::npos);
}

TEST(CompareCli, NeverWritesOverAnInputAndNamesAMissingSide) {
  const Twins& t = SynthTwins();
  const std::string input = t.base + "/ground_truth.json";
  const auto before = std::filesystem::file_size(input);
  const CommandResult onto = RunTrainscope({"compare", t.base, t.fused, "--json", input});
  EXPECT_EQ(onto.exit_code, 2);
  EXPECT_EQ(std::filesystem::file_size(input), before);
  const CommandResult missing = RunTrainscope({"compare", t.base, t.base + "/nope"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("nope"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace trainscope::testing
