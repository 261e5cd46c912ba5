// The fingerprint gain model (analysis/motifs/gain_model.h): the fused
// kernel's time sized by the members' shapes, and the fallback to the
// longest member where a shape is missing. Expected numbers are worked out
// by hand in the comments.
#include "analysis/motifs/gain_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "analysis/common/visited_quantiles.h"
#include "core/string_pool.h"
#include "model/device_events.h"
#include "random_draws.h"

namespace trainscope::analysis {
namespace {

struct Member {
  const char* op_type;
  int64_t start_ns;
  int64_t duration_ns;
  const char* in_shapes;
  const char* in_types;
  const char* out_shapes;
  const char* out_types;
};

class GainModelShapes : public ::testing::Test {
 protected:
  void Add(const Member& m) {
    model::DeviceEvent row;
    row.op_type = strings_.Intern(m.op_type);
    row.start_ns = m.start_ns;
    row.duration_ns = m.duration_ns;
    row.tensors = events_.InternTensors({.input_shapes = strings_.Intern(m.in_shapes),
                                         .input_dtypes = strings_.Intern(m.in_types),
                                         .output_shapes = strings_.Intern(m.out_shapes),
                                         .output_dtypes = strings_.Intern(m.out_types)});
    sequence_.rows.push_back(static_cast<uint32_t>(events_.size()));
    events_.Append(row);
  }

  InstanceCost Estimate(FingerprintAction action, std::vector<int32_t> kept = {}) {
    FingerprintInstance instance;
    instance.begin = 0;
    instance.end = static_cast<int32_t>(sequence_.rows.size());
    instance.kept = std::move(kept);
    Fingerprint fingerprint;
    fingerprint.action = action;
    MemberFacts facts(events_, strings_);
    return EstimateInstance(events_, sequence_, instance, fingerprint, /*launch_overhead_ns=*/5000,
                            &facts);
  }

  StringPool strings_;
  model::DeviceEvents events_;
  KernelSequence sequence_;
};

// A three-kernel RMSNorm-like chain on a [1024, 1024] activation (1 Mi
// elements): Cast bf16 -> fp32 (2 MiB in, 4 MiB out), Mul fp32 x fp32 row
// weights [1024] (4 MiB + 4 KiB in, 4 MiB out), Cast fp32 -> bf16 (4 MiB
// in, 2 MiB out).
TEST_F(GainModelShapes, FusedPassMovesTheChainsBoundaryAtTheMembersRate) {
  Add({"Mul", 0, 30000, "1024,1024", "DT_BF16", "1024,1024", "FLOAT"});
  Add({"Mul", 40000, 40000, "1024,1024;1024", "FLOAT;FLOAT", "1024,1024", "FLOAT"});
  Add({"Mul", 90000, 30000, "1024,1024", "FLOAT", "1024,1024", "DT_BF16"});
  const InstanceCost cost = Estimate(FingerprintAction::kFuse);
  const double mib = 1024.0 * 1024.0;
  // Members: (2 + 4) + (4 + 4 KiB + 4) + (4 + 2) MiB = 20 MiB + 4 KiB.
  ASSERT_TRUE(cost.member_bytes.has_value());
  EXPECT_DOUBLE_EQ(*cost.member_bytes, 20 * mib + 4096);
  // Boundary: the first Cast's input (2 MiB) + the last Cast's output
  // (2 MiB) = 4 MiB, below the widest member's inputs (4 MiB + 4 KiB).
  ASSERT_TRUE(cost.fused_bytes.has_value());
  EXPECT_DOUBLE_EQ(*cost.fused_bytes, 4 * mib + 4096);
  EXPECT_EQ(cost.kernel_ns, 100000);
  EXPECT_EQ(cost.span_ns, 120000);
  // One pass = 100 us x (4 MiB + 4 KiB) / (20 MiB + 4 KiB) = 20.0156 us,
  // + 5 us launch.
  const double one_pass = 100000.0 * (4 * mib + 4096) / (20 * mib + 4096);
  EXPECT_NEAR(static_cast<double>(cost.fused_ns), one_pass + 5000, 1.0);
  EXPECT_EQ(cost.saving_ns, cost.span_ns - cost.fused_ns);
  // The duration-only model would have charged the longest member (40 us).
  EXPECT_LT(cost.fused_ns, 40000 + 5000);
}

TEST_F(GainModelShapes, AMemberWithoutShapesFallsBackToTheLongestMember) {
  Add({"Mul", 0, 30000, "1024,1024", "DT_BF16", "1024,1024", "FLOAT"});
  Add({"Mul", 40000, 40000, "", "", "", ""});
  Add({"Mul", 90000, 30000, "1024,1024", "FLOAT", "1024,1024", "DT_BF16"});
  const InstanceCost cost = Estimate(FingerprintAction::kFuse);
  EXPECT_FALSE(cost.member_bytes.has_value());
  EXPECT_FALSE(cost.fused_bytes.has_value());
  EXPECT_EQ(cost.fused_ns, 40000 + 5000);
  EXPECT_EQ(cost.saving_ns, 120000 - 45000);
}

TEST_F(GainModelShapes, AnUnknownTypeIsNotSized) {
  Add({"Mul", 0, 30000, "1024,1024", "NOT_A_TYPE", "1024,1024", "FLOAT"});
  Add({"Mul", 40000, 40000, "1024,1024", "FLOAT", "1024,1024", "FLOAT"});
  const InstanceCost cost = Estimate(FingerprintAction::kFuse);
  EXPECT_FALSE(cost.member_bytes.has_value());
  EXPECT_EQ(cost.fused_ns, 40000 + 5000);
}

// Glue around a kept op: the kept op runs either way and is not sized; the
// glue disappears (remove), so shapes do not enter the fused time.
TEST_F(GainModelShapes, RemovedGlueKeepsOnlyTheKeptOpAndOneLaunch) {
  Add({"Mul", 0, 10000, "64,64", "FLOAT", "64,64", "FLOAT"});
  Add({"Mul", 20000, 50000, "", "", "", ""});  // the custom op (kept)
  Add({"Mul", 80000, 10000, "64,64", "FLOAT", "64,64", "FLOAT"});
  const InstanceCost cost = Estimate(FingerprintAction::kRemove, {1});
  EXPECT_EQ(cost.kept_ns, 50000);
  EXPECT_EQ(cost.kernel_ns, 20000);
  EXPECT_EQ(cost.fused_ns, 50000 + 5000);
  EXPECT_EQ(cost.saving_ns, 90000 - 55000);
  // The glue members are sized (the kept op is excluded from traffic).
  ASSERT_TRUE(cost.member_bytes.has_value());
  EXPECT_DOUBLE_EQ(*cost.member_bytes, 4.0 * 64 * 64 * 4);
}

// A matmul inside the chain (the vocabulary projection of the cross-entropy
// chain) keeps its time: fusion moves the softmax into its epilogue, not its
// FLOPs away. The pass is sized over the other members: Cast bf16 -> fp32
// of a [1024, 1024] tile (2 + 4 MiB), LogSoftmax fp32 (4 + 4 MiB): 14 MiB
// moved in 60 us; boundary = 2 MiB in + 4 MiB out = 6 MiB, the widest
// inputs 4 MiB: one pass = 60 us x 6 / 14.
TEST_F(GainModelShapes, AMatmulMemberKeepsItsTimeAndIsNotTraffic) {
  Add({"MatMulV3", 0, 200000, "1024,4096;4096,1024", "DT_BF16;DT_BF16", "1024,1024", "DT_BF16"});
  Add({"Cast", 210000, 20000, "1024,1024", "DT_BF16", "1024,1024", "FLOAT"});
  Add({"LogSoftmaxV2", 240000, 40000, "1024,1024", "FLOAT", "1024,1024", "FLOAT"});
  const InstanceCost cost = Estimate(FingerprintAction::kFuse);
  const double mib = 1024.0 * 1024.0;
  EXPECT_EQ(cost.matmul_ns, 200000);
  EXPECT_EQ(cost.kernel_ns, 260000);
  ASSERT_TRUE(cost.member_bytes.has_value());
  EXPECT_DOUBLE_EQ(*cost.member_bytes, 14 * mib);
  EXPECT_DOUBLE_EQ(*cost.fused_bytes, 6 * mib);
  const auto one_pass = static_cast<int64_t>(std::llround(60000.0 * 6 / 14));
  EXPECT_EQ(cost.fused_ns, 200000 + 5000 + one_pass);
  EXPECT_EQ(cost.saving_ns, 280000 - cost.fused_ns);
}

// The launch overhead is the median of the shortest decile of a step's
// compute kernels. Selected without a copy now; this is the copy it was
// first written as (two selections), on random durations over several
// streams, ties and negative durations included.
int64_t LaunchOverheadAsFirstWritten(const model::DeviceEvents& table,
                                     const std::vector<KernelSequence>& sequences) {
  std::vector<int64_t> durations;
  for (const auto& seq : sequences) {
    for (uint32_t row : seq.rows) durations.push_back(table.duration_ns[row]);
  }
  if (durations.empty()) return 0;
  const size_t decile = std::max<size_t>(1, durations.size() / 10);
  std::nth_element(durations.begin(), durations.begin() + static_cast<std::ptrdiff_t>(decile - 1),
                   durations.end());
  std::vector<int64_t> shortest(durations.begin(),
                                durations.begin() + static_cast<std::ptrdiff_t>(decile));
  std::nth_element(shortest.begin(),
                   shortest.begin() + static_cast<std::ptrdiff_t>(shortest.size() / 2),
                   shortest.end());
  return shortest[shortest.size() / 2];
}

TEST(LaunchOverhead, IsTheMedianOfTheShortestDecileAsFirstWritten) {
  testing::RandomDraws draw(53);
  for (int trial = 0; trial < 200; ++trial) {
    model::DeviceEvents table;
    std::vector<KernelSequence> sequences(1 + static_cast<size_t>(draw(3)));
    const int kernels = draw(500);
    for (int i = 0; i < kernels; ++i) {
      model::DeviceEvent row;
      // Few distinct values in some trials (ties), wide ones in others.
      row.duration_ns = trial % 3 == 0 ? draw(7) : int64_t{draw(1 << 30)} * draw(1 << 12) - 5000;
      sequences[static_cast<size_t>(draw(static_cast<uint32_t>(sequences.size())))].rows.push_back(
          static_cast<uint32_t>(table.size()));
      table.Append(row);
    }
    EXPECT_EQ(LaunchOverheadNs(table, sequences), LaunchOverheadAsFirstWritten(table, sequences))
        << "trial " << trial;
  }
  EXPECT_EQ(LaunchOverheadNs(model::DeviceEvents(), {}), 0);
}

// Past kCopyUpTo kernels the durations are read by the radix passes instead.
TEST(LaunchOverhead, ManyKernelsGiveTheSameAnswerWithoutACopy) {
  testing::RandomDraws draw(20261207);
  model::DeviceEventColumns columns;
  std::vector<KernelSequence> sequences(2);
  const size_t kernels = kCopyUpTo + 1 + static_cast<size_t>(draw(1000));
  for (size_t i = 0; i < kernels; ++i) {
    model::DeviceEvent row;
    row.duration_ns = draw(4) == 0 ? draw(50) : int64_t{draw(1 << 20)} * 1000;
    sequences[i % 2].rows.push_back(static_cast<uint32_t>(i));
    columns.Append(row);
  }
  const model::DeviceEvents table(std::move(columns));
  EXPECT_EQ(LaunchOverheadNs(table, sequences), LaunchOverheadAsFirstWritten(table, sequences));
}

}  // namespace
}  // namespace trainscope::analysis
