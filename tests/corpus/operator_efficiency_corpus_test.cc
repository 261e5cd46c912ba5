// Per-operator efficiency on the real profiles
// (docs/findings.md "Operator efficiency and slow matmul shapes" lists these
// numbers): the GEMM rates of the Qwen1.5-0.5B traces against TraceLens'
// checked-in GEMM.csv of the same traces, and the Ascend Qwen3 job's slow
// vocabulary projection.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/step/matmul_shapes.h"
#include "golden/cli_test_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

// One line of a CSV file, quoted fields unquoted ("" inside quotes is ").
std::vector<std::string> CsvFields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

struct Gemm {
  std::string op;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  int64_t count = 0;
  double tflops = 0;  // TraceLens: mean of per-call rates; ours: time-weighted
  double kernel_us = 0;
};

std::vector<Gemm> TraceLensGemms(const std::string& csv) {
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = CsvFields(line);
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < header.size(); ++i) col[header[i]] = i;
  std::vector<Gemm> out;
  while (std::getline(in, line)) {
    const std::vector<std::string> f = CsvFields(line);
    if (f.size() != header.size()) continue;
    Gemm g;
    g.op = f[col.at("name")];
    g.m = std::stoll(f[col.at("param: M")]);
    g.n = std::stoll(f[col.at("param: N")]);
    g.k = std::stoll(f[col.at("param: K")]);
    g.batch = std::stoll(f[col.at("param: B")]);
    g.count = std::stoll(f[col.at("name_count")]);
    g.tflops = std::stod(f[col.at("TFLOPS/s_mean")]);
    g.kernel_us = std::stod(f[col.at("Kernel Time (µs)_sum")]);
    out.push_back(g);
  }
  return out;
}

// Our matmul rows of the selected step, by the M, N, K their shapes give.
std::vector<Gemm> OurGemms(const std::string& trace) {
  const CommandResult r = RunTrainscope({"analyze", trace, "--json", "-", "--threads", "2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  EXPECT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS);
  std::vector<Gemm> out;
  if (r.exit_code != 0) return out;
  for (simdjson::dom::element rank : doc["ranks"].get_array()) {
    const int64_t selected = rank["selected_step"].get_int64();
    for (simdjson::dom::element step : rank["steps"].get_array()) {
      if (step["step"].get_int64().value() != selected || step["operator_efficiency"].is_null())
        continue;
      for (simdjson::dom::element row : step["operator_efficiency"]["rows"].get_array()) {
        if (!row["matmul"].get_bool().value()) continue;
        Gemm g;
        g.op = std::string(std::string_view(row["op_type"].get_string()));
        const auto shapes = analysis::ParseShapes(std::string_view(row["shapes"].get_string()));
        const auto cost = analysis::MatmulCostOf(g.op, *shapes);
        g.m = cost->m, g.n = cost->n, g.k = cost->k, g.batch = cost->batch;
        g.count = row["count"].get_int64();
        g.tflops = row["tflops"].get_double();
        g.kernel_us = row["total_us"].get_double();
        out.push_back(g);
      }
    }
  }
  return out;
}

void CompareWithTraceLens(const std::string& dir, const std::string& trace_name) {
  const std::vector<Gemm> reference = TraceLensGemms(dir + "/reference_tracelens_csvs/GEMM.csv");
  const std::vector<Gemm> ours = OurGemms(dir + "/" + trace_name);
  ASSERT_GE(reference.size(), 4u);
  for (const Gemm& t : reference) {
    SCOPED_TRACE(t.op + " " + std::to_string(t.m) + "x" + std::to_string(t.n) + "x" +
                 std::to_string(t.k));
    const Gemm* found = nullptr;
    for (const Gemm& o : ours) {
      if (o.op == t.op && o.m == t.m && o.n == t.n && o.k == t.k && o.batch == t.batch) found = &o;
    }
    ASSERT_NE(found, nullptr);
    std::printf(
        "%s %s %lldx%lldx%lld: %lld calls, %.1f us, %.3f TFLOP/s (TraceLens %lld calls, "
        "%.1f us, %.3f)\n",
        dir.c_str() + dir.rfind('/') + 1, t.op.c_str(), static_cast<long long>(t.m),
        static_cast<long long>(t.n), static_cast<long long>(t.k),
        static_cast<long long>(found->count), found->kernel_us, found->tflops,
        static_cast<long long>(t.count), t.kernel_us, t.tflops);
    EXPECT_EQ(found->count, t.count);
    // The same kernels (GEMM and the memset before it) under the same op:
    // the same time up to the µs rounding of the two outputs.
    EXPECT_NEAR(found->kernel_us, t.kernel_us, 0.001 * t.kernel_us + 1);
    // Total FLOPs over total time against the mean of per-call rates: equal
    // for one call, within the calls' spread (1-2%) for many.
    EXPECT_NEAR(found->tflops, t.tflops, 0.02 * t.tflops + 1e-3);
  }
}

TEST(OperatorEfficiencyCorpus, QwenGemmRatesMatchTraceLensOnH100AndMi300x) {
  TS_REQUIRE_CORPUS("kineto/tracelens_qwen1.5_0.5b_h100_vs_mi300x");
  const std::string base = corpus_path + "/kineto/tracelens_qwen1.5_0.5b_h100_vs_mi300x/";
  CompareWithTraceLens(base + "h100", "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
  CompareWithTraceLens(base + "mi300", "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
}

TEST(OperatorEfficiencyCorpus, Qwen3VocabularyProjectionIsASlowShape) {
  TS_REQUIRE_CORPUS("ascend/msinsight-st-qwen3-0.6b-4rank-level2-cann8.3.RC1");
  const CommandResult r = RunTrainscope(
      {"analyze", corpus_path + "/ascend/msinsight-st-qwen3-0.6b-4rank-level2-cann8.3.RC1",
       "--json", "-", "--threads", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS);
  int found = 0;
  for (simdjson::dom::element f : doc["findings"].get_array()) {
    if (std::string_view(f["id"].get_string()) != "slow-matmul-shape") continue;
    ++found;
    std::vector<int64_t> ranks;
    for (simdjson::dom::element rank : f["ranks"].get_array()) ranks.push_back(rank.get_int64());
    EXPECT_EQ(ranks, std::vector<int64_t>{2});  // the last pipeline stage: the LM head
    simdjson::dom::element v = f["evidence_values"];
    EXPECT_NEAR(v["tflops"].get_double(), 69.2, 0.1);
    EXPECT_NEAR(v["yardstick_tflops"].get_double(), 216.6, 0.1);
    EXPECT_NEAR(v["lost_ms"].get_double(), 25.05, 0.01);
    EXPECT_TRUE(v["peak_pct"].error() == simdjson::NO_SUCH_FIELD);  // no Ascend peak
    const std::string_view evidence = f["evidence"].get_string();
    EXPECT_NE(evidence.find("4096,151936;151936,1024"), std::string_view::npos) << evidence;
    EXPECT_NE(evidence.find("not 512-byte aligned"), std::string_view::npos) << evidence;
    const std::string_view remedy = f["remedy"].get_string();
    EXPECT_NE(remedy.find("allow_hf32"), std::string_view::npos) << remedy;  // Ascend's switches
  }
  EXPECT_EQ(found, 1);
}

}  // namespace
}  // namespace trainscope::testing
