// `trainscope accuracy` on hostile options and dumps: thresholds that are
// negative, NaN or out of a double's range are refused (exit 2, the option
// named), a dump.json number out of range names its byte, and --csv writes
// msprobe compare's columns with formula-looking names neutralised.
#include <gtest/gtest.h>

#include <string>

#include "hostile/hostile_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

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

}  // namespace
}  // namespace trainscope::testing
