// `trainscope accuracy` on hostile options and dumps: thresholds that are
// negative, NaN or out of a double's range are refused (exit 2, the option
// named), a dump.json number out of range names its byte, and --csv writes
// msprobe compare's columns with formula-looking names neutralised.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "allocation/sanitizer_allocator.h"
#include "hostile/hostile_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

namespace fs = std::filesystem;

std::string TinyDump(const std::string& api, double max) {
  return R"({"task":"statistics","level":"L1","framework":"pytorch","data":{")" + api +
         R"(":{"output":[{"type":"torch.Tensor","dtype":"torch.float32","shape":[2],"Max":)" +
         std::to_string(max) + R"(,"Min":0,"Mean":0.5,"Norm":1}]}}})";
}

TEST(HostileAccuracy, NegativeNanAndHugeThresholdsAreRefused) {
  const std::string root = MakeTempDir("acc-opts");
  ASSERT_TRUE(WriteBytes(root + "/a.json", TinyDump("Functional.relu.0.forward", 1)));
  const TreeSnapshot before = SnapshotTree(root);
  for (const auto& [option, value] :
       std::vector<std::pair<std::string, std::string>>{{"--max-abs", "-1"},
                                                        {"--max-abs", "nan"},
                                                        {"--max-abs", "1e400"},
                                                        {"--min-cosine", "nan"},
                                                        {"--min-cosine", "2"},
                                                        {"--loss-tolerance", "-0.5"}}) {
    CommandResult r = RunTrainscopeIn(root, {"accuracy", "a.json", "a.json", option, value});
    EXPECT_EQ(r.exit_code, 2) << option << " " << value << ": " << r.err;
    EXPECT_TRUE(Contains(r.err, option)) << r.err;
    EXPECT_EQ(r.out, "");
  }
  EXPECT_EQ(DiffTrees(before, SnapshotTree(root)), "");
  CommandResult ok = RunTrainscopeIn(root, {"accuracy", "a.json", "a.json", "--max-abs", "0"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST(HostileAccuracy, NumberOutOfRangeInDumpJsonNamesTheByte) {
  const std::string root = MakeTempDir("acc-1e400");
  const std::string bad =
      R"({"data":{"Functional.relu.0.forward":{"output":[{"type":"torch.Tensor",)"
      R"("dtype":"torch.float32","shape":[2],"Max":1e400}]}}})";
  ASSERT_TRUE(WriteBytes(root + "/bad.json", bad));
  ASSERT_TRUE(WriteBytes(root + "/a.json", TinyDump("Functional.relu.0.forward", 1)));
  CommandResult r = RunTrainscopeIn(root, {"accuracy", "a.json", "bad.json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(Contains(r.err, "bad.json: byte " + std::to_string(bad.find("1e400")) +
                                  ": number '1e400' is out of a double's range"))
      << r.err;
  EXPECT_TRUE(Contains(r.err, "hint:")) << r.err;
}

TEST(HostileAccuracy, CsvHasMsprobeColumnsAndNeutralisesFormulas) {
  const std::string root = MakeTempDir("acc-csv");
  ASSERT_TRUE(WriteBytes(root + "/a.json", TinyDump("=cmd.0.forward", 1)));
  ASSERT_TRUE(WriteBytes(root + "/b.json", TinyDump("=cmd.0.forward", 2)));
  CommandResult r = RunTrainscopeIn(root, {"accuracy", "a.json", "b.json", "--csv", "-"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out,
                       "NPU Name,Bench Name,NPU Dtype,Bench Dtype,NPU Tensor Shape,Bench Tensor "
                       "Shape,Cosine,EucDist,MaxAbsErr,MaxRelativeErr,One Thousandth Err Ratio,"
                       "Five Thousandth Err Ratio,Max diff,"))
      << r.out;
  // NEW is msprobe's NPU side, BASE its bench; Max 2 vs 1 is a divergence (No).
  EXPECT_TRUE(Contains(r.out,
                       "'=cmd.0.forward.output.0,'=cmd.0.forward.output.0,torch.float32,"
                       "torch.float32,[2],[2],N/A,N/A,N/A,N/A,N/A,N/A,1,0,0,0,2,"))
      << r.out;
  EXPECT_TRUE(Contains(r.out, ",No,")) << r.out;
}

TEST(HostileAccuracy, SeveralRanksAreComparedRankByRank) {
  const std::string root = MakeTempDir("acc-ranks");
  for (const char* side : {"a", "b"}) {
    for (int rank = 0; rank < 2; ++rank) {
      const double max = std::string(side) == "b" && rank == 1 ? 5 : 1;
      ASSERT_TRUE(
          WriteBytes(root + "/" + side + "/step0/rank" + std::to_string(rank) + "/dump.json",
                     TinyDump("Functional.relu.0.forward", max)));
    }
  }
  ASSERT_TRUE(
      WriteBytes(root + "/b/step0/rank2/dump.json", TinyDump("Functional.relu.0.forward", 1)));
  CommandResult r = RunTrainscopeIn(root, {"accuracy", "a", "b"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out,
                       "ranks compared rank by rank: rank0, rank1 paired; BASE only: none; NEW "
                       "only: rank2"))
      << r.out;
  EXPECT_TRUE(Contains(r.out, "    rank0: no divergence: ")) << r.out;
  EXPECT_TRUE(Contains(r.out, "    rank1: first divergence at Functional.relu.0.forward")) << r.out;
  EXPECT_TRUE(Contains(r.out, "shown below: rank1")) << r.out;
  CommandResult one = RunTrainscopeIn(root, {"accuracy", "a", "b", "--rank", "0"});
  EXPECT_EQ(one.exit_code, 0) << one.err;
  EXPECT_TRUE(Contains(one.out, "verdict: no divergence")) << one.out;
}

// `trainscope accuracy` on two large statistics dumps: what a tensor pair
// costs is the two dumps' records and a small result that refers to them
// (docs/hostile-input.md), never a copy of their names and shapes.
int64_t AccuracyPeakKb(const std::string& err) {
  const size_t at = err.rfind("peak_kb=");
  return at == std::string::npos ? -1 : std::stoll(err.substr(at + 8));
}

// A statistics dump.json of |calls| calls of three tensors each (msprobe's
// layout, one line per tensor).
std::string ManyCallsDump(int calls, double scale) {
  std::string out = R"({"task":"statistics","level":"L1","framework":"pytorch","data":{)";
  for (int i = 0; i < calls; ++i) {
    out += i == 0 ? "\n" : ",\n";
    out += R"("Functional.linear.)" + std::to_string(i) + R"(.forward":{)";
    for (const char* role : {"input_args", "output"}) {
      out += std::string(role == std::string("output") ? "," : "") + "\"" + role + "\":[";
      const int tensors = role == std::string("output") ? 1 : 2;
      for (int t = 0; t < tensors; ++t) {
        const double max = 1 + (i % 97) * 0.01 + t;
        out += std::string(t > 0 ? "," : "") +
               R"({"type":"torch.Tensor","dtype":"torch.bfloat16","shape":[4,4096,1024],"Max":)" +
               std::to_string(max * scale) + R"(,"Min":)" + std::to_string(-max) +
               R"(,"Mean":0.01,"Norm":)" + std::to_string(100 + i % 89) +
               R"(,"requires_grad":false})" + "\n";
      }
      out += "]";
    }
    out += "}";
  }
  return out + "}}\n";
}

// Bytes of peak RSS a tensor pair may cost, the two dumps' records included.
constexpr int64_t kAccuracyBytesPerPair = 1600;
constexpr int64_t kAccuracyFixedKb = 24 * 1024;

TEST(HostileAccuracyMemory, PairsReferToTheDumpsRecords) {
  if (SanitizerAllocator()) GTEST_SKIP() << "sanitizer build: its allocator decides RSS";
  const std::string root = MakeTempDir("acc-memory");
  constexpr int kCalls = 40'000;
  constexpr int64_t kPairs = 3 * kCalls;
  const std::string base = ManyCallsDump(kCalls, 1);
  ASSERT_TRUE(WriteBytes(root + "/base/dump.json", base));
  ASSERT_TRUE(WriteBytes(root + "/new/dump.json", ManyCallsDump(kCalls, 1.0001)));
  const CommandResult idle =
      RunShell(root, "/usr/bin/time -f peak_kb=%M \"$TRAINSCOPE\" --version");
  const int64_t baseline_kb = AccuracyPeakKb(idle.err);
  ASSERT_GT(baseline_kb, 0) << idle.err;
  const CommandResult r =
      RunShell(root, "/usr/bin/time -f peak_kb=%M \"$TRAINSCOPE\" accuracy base new --threads 2");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string n = std::to_string(kPairs);
  EXPECT_TRUE(Contains(
      r.out, n + " of " + n + " BASE tensors and " + n + " of " + n + " NEW tensors judged"))
      << r.out.substr(0, 800);
  const int64_t peak_kb = AccuracyPeakKb(r.err);
  ASSERT_GT(peak_kb, 0) << r.err;
  // The dump.json being read is held once (its bytes, while walked).
  const int64_t input_kb = static_cast<int64_t>(base.size() / 1024);
  EXPECT_LE(peak_kb - baseline_kb,
            input_kb + kPairs * kAccuracyBytesPerPair / 1024 + kAccuracyFixedKb)
      << "peak RSS " << peak_kb << " kB, of which " << baseline_kb << " kB before any input";
  std::printf(
      "[ RSS      ] accuracy: %lld pairs, dump.json %lld kB, peak RSS %lld kB (%lld kB "
      "before)\n",
      static_cast<long long>(kPairs), static_cast<long long>(input_kb),
      static_cast<long long>(peak_kb), static_cast<long long>(baseline_kb));

  // The JSON and CSV documents (an object or row per pair, many times the
  // input) are streamed to their files: writing them costs a few chunks,
  // never their size.
  const CommandResult written =
      RunShell(root,
               "/usr/bin/time -f peak_kb=%M \"$TRAINSCOPE\" accuracy base new --threads 2 "
               "--json out.json --csv out.csv");
  EXPECT_EQ(written.exit_code, 0) << written.err;
  const int64_t written_kb = AccuracyPeakKb(written.err);
  ASSERT_GT(written_kb, 0) << written.err;
  const int64_t json_kb = static_cast<int64_t>(fs::file_size(root + "/out.json") / 1024);
  const int64_t csv_kb = static_cast<int64_t>(fs::file_size(root + "/out.csv") / 1024);
  constexpr int64_t kStreamSlackKb = 32 * 1024;
  EXPECT_GT(json_kb, 4 * kStreamSlackKb) << "too small to tell streamed from held";
  EXPECT_LE(written_kb - peak_kb, kStreamSlackKb)
      << "peak RSS " << written_kb << " kB writing " << json_kb << " kB of JSON and " << csv_kb
      << " kB of CSV, " << peak_kb << " kB without";
  // Whole: it opens with the schema and ends with the closing brace.
  std::FILE* f = std::fopen((root + "/out.json").c_str(), "rb");
  ASSERT_NE(f, nullptr);
  std::string head(200, '\0'), tail(2, '\0');
  head.resize(std::fread(head.data(), 1, head.size(), f));
  std::fseek(f, -2, SEEK_END);
  tail.resize(std::fread(tail.data(), 1, tail.size(), f));
  std::fclose(f);
  EXPECT_TRUE(Contains(head, "\"schema\": \"trainscope.accuracy/2\"")) << head;
  EXPECT_EQ(tail, "}\n");
  std::printf("[ RSS      ] accuracy --json --csv: %lld kB JSON, %lld kB CSV, peak RSS %lld kB\n",
              static_cast<long long>(json_kb), static_cast<long long>(csv_kb),
              static_cast<long long>(written_kb));
}

}  // namespace
}  // namespace trainscope::testing
