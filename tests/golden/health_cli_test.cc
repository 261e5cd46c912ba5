// `trainscope health` through the real binary: several logs at once (read
// in parallel, reported in the order given), the JSON's guaranteed fields,
// and a missing log failing with exit 2 and its name.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>
#include <vector>

#include "golden/cli_test_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

std::string Log(const std::string& name) { return SourceDir() + "/tests/data/logs/" + name; }

TEST(HealthCli, ManyLogsInOrderWithTheirFindingSteps) {
  const std::vector<std::string> names = {"torchtitan_planted.log", "megatron_clean.log",
                                          "megatron_planted.log.gz", "hf_trainer_planted.log"};
  std::vector<std::string> args = {"health", "--json", "-", "--threads", "3"};
  for (const std::string& n : names) args.push_back(Log(n));
  const CommandResult r = RunTrainscope(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out.substr(0, 200);
  std::string_view schema;
  ASSERT_EQ(doc["schema"].get(schema), simdjson::SUCCESS);
  EXPECT_EQ(schema, "trainscope.health/1");
  int64_t findings = 0;
  ASSERT_EQ(doc["verdict"]["findings"].get(findings), simdjson::SUCCESS);
  // TorchTitan 4 (nan, spike, explosion, hang), clean 0, Megatron 6 (+ OOM,
  // timeout), HF 3 (no timestamps: no hang).
  EXPECT_EQ(findings, 4 + 0 + 6 + 3);
  size_t i = 0;
  for (simdjson::dom::element run : doc["runs"].get_array()) {
    ASSERT_LT(i, names.size());
    std::string_view path;
    ASSERT_EQ(run["path"].get(path), simdjson::SUCCESS);
    EXPECT_EQ(path, Log(names[i]));
    int64_t read = 0;
    int64_t used = 0;
    int64_t skipped = 0;
    ASSERT_EQ(run["lines"]["read"].get(read), simdjson::SUCCESS);
    ASSERT_EQ(run["lines"]["used"].get(used), simdjson::SUCCESS);
    ASSERT_EQ(run["lines"]["skipped"].get(skipped), simdjson::SUCCESS);
    EXPECT_EQ(read, used + skipped) << path;
    for (const char* key : {"step_ms", "tokens_per_s", "tflops", "mfu_pct", "loss", "grad_norm"}) {
      EXPECT_FALSE(run[key]["median"].error()) << path << " " << key;
    }
    for (simdjson::dom::element f : run["findings"].get_array()) {
      std::string_view id;
      ASSERT_EQ(f["id"].get(id), simdjson::SUCCESS);
      if (id == "nan-inf") {
        int64_t step = 0;
        ASSERT_EQ(f["evidence_values"]["step"].get(step), simdjson::SUCCESS);
        EXPECT_EQ(step, names[i] == "hf_trainer_planted.log" ? 38 : 380);
      }
    }
    ++i;
  }
  EXPECT_EQ(i, names.size());
}

TEST(HealthCli, MissingLogNamesTheFile) {
  const CommandResult r = RunTrainscope({"health", Log("megatron_clean.log"), "/nonexistent.log"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent.log"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

}  // namespace
}  // namespace trainscope::testing
