// `trainscope accuracy` through the real binary: synth's planted dumps
// (JSON names the first diverging call), the HTML page with its curve, the
// loss-curve mode on one-number-per-line files, and a missing dump failing
// with exit 2 and its name.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <fstream>
#include <string>

#include "golden/cli_test_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

TEST(AccuracyCli, JsonNamesThePlantedCall) {
  const std::string dir = MakeTempDir("acc_cli_nan");
  ASSERT_EQ(RunTrainscope({"synth", "--accuracy", "nan", "--out", dir}).exit_code, 0);
  const CommandResult r =
      RunTrainscope({"accuracy", dir + "/base", dir + "/new", "--json", "-", "--threads", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out.substr(0, 200);
  std::string_view schema, call, module;
  ASSERT_EQ(doc["schema"].get(schema), simdjson::SUCCESS);
  EXPECT_EQ(schema, "trainscope.accuracy/2");
  ASSERT_EQ(doc["first_divergence"]["call"].get(call), simdjson::SUCCESS);
  EXPECT_EQ(call, "Functional.silu.1.forward");
  ASSERT_EQ(doc["first_divergence"]["module"].get(module), simdjson::SUCCESS);
  EXPECT_EQ(module, "layers.1.mlp.act_fn");
  int64_t nan_next = 0;
  ASSERT_EQ(doc["first_divergence"]["metrics"]["nan_next"].get(nan_next), simdjson::SUCCESS);
  EXPECT_EQ(nan_next, 1);
  EXPECT_TRUE(doc["first_divergence"]["error"].is_null());  // infinite: null in JSON
}

TEST(AccuracyCli, HtmlPageWithTheErrorCurve) {
  const std::string dir = MakeTempDir("acc_cli_html");
  ASSERT_EQ(RunTrainscope({"synth", "--accuracy", "bf16", "--out", dir}).exit_code, 0);
  const std::string html = dir + "/acc.html";
  const CommandResult r = RunTrainscope({"accuracy", dir + "/base", dir + "/new", "--html", html});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string page = ReadFileBytes(html);
  EXPECT_NE(page.find("First divergence at <code>Functional.linear.7.forward</code>"),
            std::string::npos);
  EXPECT_NE(page.find("<svg"), std::string::npos);
  EXPECT_NE(page.find("first divergence</text>"), std::string::npos);
  EXPECT_NE(r.out.find("first divergence at Functional.linear.7.forward"), std::string::npos);
}

TEST(AccuracyCli, LossCurvesFromOneNumberPerLine) {
  const std::string dir = MakeTempDir("acc_cli_loss");
  std::ofstream a(dir + "/a.txt"), b(dir + "/b.txt");
  // NEW runs 5% above BASE from the 6th value on (relative 0.05/1.05 = 0.0476 > 0.02).
  for (int i = 1; i <= 10; ++i) {
    const double loss = 8.0 - 0.25 * i;
    a << loss << "\n";
    b << (i >= 6 ? loss * 1.05 : loss) << "\n";
  }
  a.close();
  b.close();
  const CommandResult r =
      RunTrainscope({"accuracy", "--loss", dir + "/a.txt", dir + "/b.txt", "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  int64_t step = 0;
  ASSERT_EQ(doc["loss"]["separation_step"].get(step), simdjson::SUCCESS) << r.out;
  EXPECT_EQ(step, 6);
  int64_t common = 0;
  ASSERT_EQ(doc["loss"]["common_steps"].get(common), simdjson::SUCCESS);
  EXPECT_EQ(common, 10);
}

TEST(AccuracyCli, LossCurvesFromTrainingLogs) {
  const std::string log = SourceDir() + "/tests/data/logs/megatron_clean.log";
  const CommandResult same = RunTrainscope({"accuracy", "--loss", log, log});
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_NE(same.out.find("the curves overlap within the tolerance"), std::string::npos)
      << same.out;
}

TEST(AccuracyCli, MissingDumpIsExitTwoWithItsName) {
  const std::string dir = MakeTempDir("acc_cli_missing");
  const CommandResult r = RunTrainscope({"accuracy", dir + "/nope", dir});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nope: no such file or directory"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace trainscope::testing
