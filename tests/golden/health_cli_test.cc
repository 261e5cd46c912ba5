// `trainscope health` through the real binary: several logs at once (read
// in parallel, reported in the order given), the JSON's guaranteed fields,
// and a missing log failing with exit 2 and its name.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
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
  EXPECT_EQ(schema, "trainscope.health/2");
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

// make_fixtures.py: tokens/s per device, the mean of two ranks' medians:
// 8 devices 6050, 16 devices 5750, 64 devices 4850 (given out of order).
TEST(HealthCli, ScalingTableAgainstTheSmallestRun) {
  const std::string dir = SourceDir() + "/tests/data/logs/scaling/";
  const CommandResult r = RunTrainscope(
      {"health", "--scaling", dir + "run64/", dir + "run8", dir + "run16", "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out.substr(0, 200);
  std::string_view metric;
  ASSERT_EQ(doc["scaling"]["metric"].get(metric), simdjson::SUCCESS);
  EXPECT_EQ(metric, "tokens/s per device");
  const int64_t devices[] = {8, 16, 64};
  const double per_device[] = {6050, 5750, 4850};
  size_t i = 0;
  for (simdjson::dom::element row : doc["scaling"]["runs"].get_array()) {
    ASSERT_LT(i, 3u);
    int64_t d = 0;
    double v = 0, eff = 0, speedup = 0;
    ASSERT_EQ(row["devices"].get(d), simdjson::SUCCESS);
    ASSERT_EQ(row["per_device"].get(v), simdjson::SUCCESS);
    ASSERT_EQ(row["efficiency_pct"].get(eff), simdjson::SUCCESS);
    ASSERT_EQ(row["speedup"].get(speedup), simdjson::SUCCESS);
    EXPECT_EQ(d, devices[i]);
    EXPECT_DOUBLE_EQ(v, per_device[i]);
    EXPECT_NEAR(eff, per_device[i] / 6050 * 100, 1e-4);
    EXPECT_NEAR(speedup, per_device[i] * static_cast<double>(devices[i]) / (6050 * 8), 1e-4);
    ++i;
  }
  EXPECT_EQ(i, 3u);
  const CommandResult bad = RunTrainscope({"health", "--scaling", dir});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("no device count"), std::string::npos) << bad.err;
}

TEST(HealthCli, HtmlHasTheCurvesAndTheFindingsMarked) {
  const std::string out = MakeTempDir("health_html") + "/health.html";
  const CommandResult r =
      RunTrainscope({"health", Log("megatron_planted.log"), "--html", out, "--model",
                     "params=7B,seq=4096,batch=256,devices=64", "--device", "H800"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(out);
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("<title>trainscope health</title>"), std::string::npos);
  for (const char* chart :
       {"aria-label=\"loss\"", "aria-label=\"grad norm\"", "aria-label=\"step time (ms)\"",
        "aria-label=\"TGS (tokens/s per device, from --model)\"",
        "aria-label=\"MFU % (from --model)\""}) {
    EXPECT_NE(html.find(chart), std::string::npos) << chart;
  }
  // The planted events as dashed lines with their ids.
  for (const char* id : {">loss-spike<", ">grad-explosion<", ">nan-inf<", ">hang<"}) {
    EXPECT_NE(html.find(id), std::string::npos) << id;
  }
  EXPECT_NE(r.out.find("model MFU"), std::string::npos) << r.out;
}

// A directory: every regular file tried, those with no training line (a
// README, a binary) passed over and listed, the logs read; a directory in
// which nothing was read is not read (exit 2).
TEST(HealthCli, DirectoryWalkedLogsReadOthersListed) {
  const std::string dir = MakeTempDir("health_dir");
  std::filesystem::create_directories(dir + "/run/sub");
  std::filesystem::copy_file(
      SourceDir() + "/tests/golden/cases/training_log/hf_console_dicts/input",
      dir + "/run/sub/train.log");
  {
    std::ofstream(dir + "/run/README.md") << "# notes\nnothing to read here\n";
    std::ofstream bin(dir + "/run/weights.bin", std::ios::binary);
    bin.write(
        "\x7f"
        "ELF\0\0\0",
        8);
  }
  const CommandResult r = RunTrainscope({"health", dir + "/run", "--json", "-"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("2 file(s) of the directories given passed over"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("README.md: no training line recognised in 2 line(s)"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("weights.bin: a NUL byte at offset 4: an ELF"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("\"records\": 20"), std::string::npos) << r.out.substr(0, 300);

  std::filesystem::create_directories(dir + "/notes");
  { std::ofstream(dir + "/notes/a.txt") << "hello\n"; }
  const CommandResult none = RunTrainscope({"health", dir + "/notes"});
  EXPECT_EQ(none.exit_code, 2) << none.err;
  EXPECT_EQ(none.out.find("healthy"), std::string::npos) << none.out;
}

// Four ranks of one run interleaved: a chart per metric with a line per
// rank on one step axis; each chart's step axis in whole steps, no label
// twice (8 steps: 2, 4, 6, 8).
TEST(HealthCli, HtmlSeriesOfAFileOnOneStepAxisInWholeSteps) {
  const std::string out = MakeTempDir("health_html_ranks") + "/health.html";
  const CommandResult r = RunTrainscope(
      {"health", SourceDir() + "/tests/golden/cases/training_log/xtuner_rank_straggler/input",
       "--html", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(out);
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t chart = html.find("aria-label=\"loss by run and rank\"");
  ASSERT_NE(chart, std::string::npos);
  const std::string svg = html.substr(chart, html.find("</svg>", chart) - chart);
  size_t lines = 0;
  for (size_t at = svg.find("<polyline"); at != std::string::npos;
       at = svg.find("<polyline", at + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, 4u);
  for (const char* rank : {">rank 0 of 4 ranks<", ">rank 1 of 4 ranks<", ">rank 2 of 4 ranks<",
                           ">rank 3 of 4 ranks<"}) {
    EXPECT_NE(svg.find(rank), std::string::npos) << rank;
  }
  std::vector<std::string> ticks;
  const std::string tick = "text-anchor=\"middle\" font-size=\"10\" fill=\"#222\">";
  for (size_t at = svg.find(tick); at != std::string::npos; at = svg.find(tick, at + 1)) {
    const size_t begin = at + tick.size();
    const std::string text = svg.substr(begin, svg.find('<', begin) - begin);
    if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) {
      ticks.push_back(text);
    }
  }
  EXPECT_EQ(ticks, (std::vector<std::string>{"2", "4", "6", "8"}));
}

}  // namespace
}  // namespace trainscope::testing

namespace trainscope::testing {
namespace {

// tests/data/logs/flight (make_fixtures.py): ranks 0-2 recorded collective
// #42 nccl:all_reduce (started), rank 3 stopped after #41 (completed).
TEST(HealthCli, FlightRecorderNamesTheCollectiveAndTheMissingRank) {
  const CommandResult r =
      RunTrainscope({"health", SourceDir() + "/tests/data/logs/flight/rank0.log", "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out.substr(0, 200);
  int64_t dumps = 0;
  ASSERT_EQ(doc["flight_recorder"]["dumps"].get(dumps), simdjson::SUCCESS);
  EXPECT_EQ(dumps, 4);
  simdjson::dom::array hangs;
  ASSERT_EQ(doc["flight_recorder"]["hangs"].get(hangs), simdjson::SUCCESS);
  ASSERT_EQ(hangs.size(), 1u);
  simdjson::dom::element h = hangs.at(0);
  int64_t seq = 0;
  std::string_view op;
  ASSERT_EQ(h["collective_seq_id"].get(seq), simdjson::SUCCESS);
  ASSERT_EQ(h["op"].get(op), simdjson::SUCCESS);
  EXPECT_EQ(seq, 42);
  EXPECT_EQ(op, "nccl:all_reduce");
  std::vector<int64_t> arrived;
  for (simdjson::dom::element a : h["arrived"].get_array()) arrived.push_back(a.get_int64());
  EXPECT_EQ(arrived, (std::vector<int64_t>{0, 1, 2}));
  simdjson::dom::array missing;
  ASSERT_EQ(h["missing"].get(missing), simdjson::SUCCESS);
  ASSERT_EQ(missing.size(), 1u);
  int64_t rank = -1, last = -1;
  ASSERT_EQ(missing.at(0)["rank"].get(rank), simdjson::SUCCESS);
  ASSERT_EQ(missing.at(0)["last_seq"].get(last), simdjson::SUCCESS);
  EXPECT_EQ(rank, 3);
  EXPECT_EQ(last, 41);
  std::string_view verdict;
  ASSERT_EQ(doc["verdict"]["text"].get(verdict), simdjson::SUCCESS);
  EXPECT_EQ(
      verdict,
      "no findings in 40 record(s) in 1 series (runs x ranks) of 1 log(s); flight recorder: 1 "
      "collective(s) not reached or completed by every member");
}

// tests/data/logs/flight_pickle: ranks 0 and 3 of the same job pickled, one
// named nccl_trace_rank_0, one _dump_3 (found by its content).
TEST(HealthCli, FlightRecorderReadsPickledDumps) {
  const CommandResult pickled =
      RunTrainscope({"health", SourceDir() + "/tests/data/logs/flight_pickle/rank0.log"});
  ASSERT_EQ(pickled.exit_code, 0) << pickled.err;
  EXPECT_NE(pickled.out.find("flight recorder  2 dump(s), ranks 0, 3\n"
                             "  group 0 (default_pg): collective #42 nccl:all_reduce: arrived 0 "
                             "(started); did not arrive: 3; no dump: 1, 2\n"
                             "    rank 3 last at #41 nccl:all_reduce (completed)\n"),
            std::string::npos)
      << pickled.out;
  const CommandResult json = RunTrainscope(
      {"health", SourceDir() + "/tests/data/logs/flight_pickle/rank0.log", "--json", "-"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json.out).get(doc), simdjson::SUCCESS) << json.out.substr(0, 200);
  std::vector<std::string> pickles;
  for (simdjson::dom::element p : doc["flight_recorder"]["pickles"].get_array()) {
    pickles.push_back(
        std::filesystem::path(std::string(p.get_string().value())).filename().string());
  }
  EXPECT_EQ(pickles, (std::vector<std::string>{"_dump_3", "nccl_trace_rank_0"}));
  EXPECT_EQ(doc["flight_recorder"]["errors"].get_array().size(), 0U);
}

// What `health --json` says of each series: path, rank, how it was told,
// the ranks of its run, and the rank-outlier finding's metric.
struct RankFileSeries {
  std::string path;
  int64_t rank = -1;
  std::string rank_source;
  int64_t ranks_in_run = 0;
  std::string outlier_metric;  // as the evidence names it; "" without a rank-outlier finding
};

std::vector<RankFileSeries> RankFileSeriesOf(const std::vector<std::string>& args) {
  std::vector<std::string> all = {"health", "--json", "-"};
  all.insert(all.end(), args.begin(), args.end());
  const CommandResult r = RunTrainscope(all);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::vector<RankFileSeries> out;
  if (parser.parse(r.out).get(doc) != simdjson::SUCCESS) {
    ADD_FAILURE() << r.out.substr(0, 200);
    return out;
  }
  for (simdjson::dom::element run : doc["runs"].get_array()) {
    RankFileSeries s;
    std::string_view text;
    if (run["path"].get(text) == simdjson::SUCCESS) s.path = std::string(text);
    int64_t v = 0;
    if (run["rank"].get(v) == simdjson::SUCCESS) s.rank = v;
    if (run["rank_source"].get(text) == simdjson::SUCCESS) s.rank_source = std::string(text);
    if (run["ranks_in_run"].get(v) == simdjson::SUCCESS) s.ranks_in_run = v;
    for (simdjson::dom::element f : run["findings"].get_array()) {
      std::string_view id;
      if (f["id"].get(id) != simdjson::SUCCESS || id != "rank-outlier") continue;
      // "rank 2's median step time (ms) is 1305.000, 29.9% off ...".
      if (f["evidence"].get(text) == simdjson::SUCCESS) {
        for (const char* metric : {"step time (ms)", "loss"}) {
          if (text.find(fmt::format("median {} is", metric)) != std::string_view::npos) {
            s.outlier_metric = metric;
          }
        }
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

// One log per rank (tests/data/logs/rank_files, make_fixtures.py): the
// lines name no rank, the file names do; rank 2's steps take 1300 ms
// against 1000-1010 ms. Given as a directory or as the four files, they
// are one run of four ranks and rank 2 is the outlier on step time.
TEST(HealthCli, RanksInSeparateFilesAreOneRun) {
  const std::string dir = SourceDir() + "/tests/data/logs/rank_files";
  std::vector<std::string> files;
  for (int rank = 0; rank < 4; ++rank) files.push_back(fmt::format("{}/rank{}.log", dir, rank));
  for (const std::vector<std::string>& args : {std::vector<std::string>{dir}, files}) {
    const std::vector<RankFileSeries> series = RankFileSeriesOf(args);
    ASSERT_EQ(series.size(), 4u);
    for (int rank = 0; rank < 4; ++rank) {
      const RankFileSeries& s = series[static_cast<size_t>(rank)];
      EXPECT_EQ(s.path, files[static_cast<size_t>(rank)]);
      EXPECT_EQ(s.rank, rank);
      EXPECT_EQ(s.rank_source, "file name");
      EXPECT_EQ(s.ranks_in_run, 4);
      EXPECT_EQ(s.outlier_metric, rank == 2 ? "step time (ms)" : "") << rank;
    }
  }
  const CommandResult text = RunTrainscope({"health", dir});
  EXPECT_NE(text.out.find("rank 2 of 4 ranks (rank from the file name)"), std::string::npos)
      << text.out;
  // One file alone names its rank by nothing but its name: a run of its own.
  const std::vector<RankFileSeries> alone = RankFileSeriesOf({files[2]});
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_EQ(alone[0].rank, -1);
  EXPECT_EQ(alone[0].rank_source, "");
}

// One node's log per file, the lines naming their ranks (torchrun's
// `[rankN]:`): the files of one directory are one run of eight ranks.
// The same ranks twice (two jobs' logs side by side) are not one run.
TEST(HealthCli, NodeLogsOfOneDirectoryAreOneRun) {
  const std::string dir = MakeTempDir("health_nodes");
  std::filesystem::create_directories(dir + "/job");
  std::filesystem::create_directories(dir + "/twice");
  for (int node = 0; node < 2; ++node) {
    std::string text;
    for (int step = 1; step <= 6; ++step) {
      for (int local = 0; local < 4; ++local) {
        const int rank = 4 * node + local;
        text += fmt::format(
            "[rank{}]:[titan] 2024-05-01 10:00:{:02d},000 - root - INFO - step: {}  loss: {:7.4f}  "
            "memory: 30.12GiB(38.05%)  tps: 6,129  tflops: 350.12  mfu: 35.40%\n",
            rank, step * 5, step, 7.0 - 0.1 * step);
      }
    }
    WriteFileBytes(fmt::format("{}/job/node{}.log", dir, node), text);
    if (node == 0) {
      WriteFileBytes(dir + "/twice/a.log", text);
      WriteFileBytes(dir + "/twice/b.log", text);
    }
  }
  const std::vector<RankFileSeries> series = RankFileSeriesOf({dir + "/job"});
  ASSERT_EQ(series.size(), 8u);
  for (int rank = 0; rank < 8; ++rank) {
    const RankFileSeries& s = series[static_cast<size_t>(rank)];
    EXPECT_EQ(s.rank, rank);
    EXPECT_EQ(s.rank_source, "line");
    EXPECT_EQ(s.ranks_in_run, 8);
  }
  const std::vector<RankFileSeries> twice = RankFileSeriesOf({dir + "/twice"});
  ASSERT_EQ(twice.size(), 8u);
  for (const RankFileSeries& s : twice) EXPECT_EQ(s.ranks_in_run, 4) << s.path;
}

}  // namespace
}  // namespace trainscope::testing
