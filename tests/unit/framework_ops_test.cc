// Framework ops (analysis/step/framework_ops.h): the chain each op's widest
// call runs is matched against the fingerprint library through the rank's
// memo, as the motif mining is: asked without it for every op of every step,
// the library's globs took 62% of a 1.5 GB trace's analysis (3.3x its time;
// docs/benchmarks.md).
#include "analysis/step/framework_ops.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "model/rank_profile.h"
#include "unit/profile_builder.h"

namespace trainscope::analysis {
namespace {

constexpr int64_t kMicros = 1'000;

using testing::AddHostOp;
using testing::AddKernel;

model::RankProfile OneOpThreeKernels() {
  model::RankProfile p;
  p.timeline.present = true;
  const int32_t op = AddHostOp(&p, "aten::layer_norm", 0, 50 * kMicros);
  for (int k = 0; k < 3; ++k) {
    const int32_t launch = AddHostOp(&p, "cudaLaunchKernel", k * kMicros, k * kMicros + 500, op);
    AddKernel(&p, (10 + 10 * k) * kMicros, (15 + 10 * k) * kMicros, launch);
  }
  return p;
}

TEST(FrameworkOps, ChainsAreMatchedThroughTheRanksMemo) {
  const model::RankProfile p = OneOpThreeKernels();
  const FingerprintLibrary& library = FingerprintLibrary::Builtin();
  FingerprintAcceptMemo memo(library);
  FrameworkOpsMemo ops_memo(library, &memo);
  const auto with_memo = ComputeFrameworkOps(p, 1, library, &ops_memo);
  const auto again = ComputeFrameworkOps(p, 1, library, &ops_memo);
  const auto without = ComputeFrameworkOps(p, 1, library);
  ASSERT_TRUE(with_memo.has_value());
  ASSERT_TRUE(without.has_value());
  ASSERT_EQ(with_memo->ops.size(), 1u);
  EXPECT_EQ(with_memo->ops[0].name, "aten::layer_norm");
  EXPECT_EQ(with_memo->ops[0].calls, 1);
  EXPECT_EQ(with_memo->ops[0].fingerprints, without->ops[0].fingerprints);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->ops[0].fingerprints, without->ops[0].fingerprints);
  // The chain's one distinct kernel was answered once, and kept for the
  // rank's other ops and steps; the chain itself was matched once.
  EXPECT_EQ(memo.entries(), 1u);
  EXPECT_EQ(ops_memo.chains(), 1u);
}

// An op whose call launches one kernel of each of |op_types| (named after
// them), from |start| on, one a microsecond.
void AddOpOfKernels(model::RankProfile* p, const char* op_name, int64_t start,
                    std::initializer_list<const char*> op_types) {
  const auto length = static_cast<int64_t>(op_types.size());
  const int32_t op = AddHostOp(p, op_name, start, start + length * kMicros);
  int64_t at = start;
  for (const char* type : op_types) {
    const int32_t launch = AddHostOp(p, "cudaLaunchKernel", at, at + 100, op);
    model::DeviceEvent e;
    e.name = p->strings.Intern(std::string(type) + "_kernel");
    e.op_type = p->strings.Intern(type);
    e.step = 1;
    e.start_ns = at + 200;
    e.duration_ns = 500;
    e.launcher = launch;
    p->device_events.Append(e);
    at += kMicros;
  }
}

TEST(FrameworkOps, EachDistinctChainIsMatchedOnceAndKeepsItsOwnFingerprints) {
  // Two calls of a decomposed RMSNorm (one chain) and one linear (another):
  // the memo matches two chains, and each op gets its own chain's ids.
  model::RankProfile p;
  p.timeline.present = true;
  const auto rms = {"Pow", "Mean", "Add", "Rsqrt", "Mul", "Mul"};
  AddOpOfKernels(&p, "aten::rms_norm", 0, rms);
  AddOpOfKernels(&p, "aten::linear", 10 * kMicros, {"MatMul", "Add"});
  AddOpOfKernels(&p, "aten::rms_norm", 20 * kMicros, rms);
  const FingerprintLibrary& library = FingerprintLibrary::Builtin();
  FingerprintAcceptMemo accept(library);
  FrameworkOpsMemo memo(library, &accept);
  const auto with_memo = ComputeFrameworkOps(p, 1, library, &memo);
  const auto without = ComputeFrameworkOps(p, 1, library);
  ASSERT_TRUE(with_memo.has_value() && without.has_value());
  ASSERT_EQ(with_memo->ops.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(with_memo->ops[i].name, without->ops[i].name);
    EXPECT_EQ(with_memo->ops[i].fingerprints, without->ops[i].fingerprints) << i;
  }
  const FrameworkOpStat& norm =
      with_memo->ops[0].name == "aten::rms_norm" ? with_memo->ops[0] : with_memo->ops[1];
  const FrameworkOpStat& linear =
      &norm == &with_memo->ops[0] ? with_memo->ops[1] : with_memo->ops[0];
  EXPECT_EQ(norm.fingerprints, std::vector<std::string>{"unfused-rmsnorm"});
  EXPECT_TRUE(linear.fingerprints.empty());
  EXPECT_EQ(memo.chains(), 2u);
  // A memo of another library is not used: the answer is the library's own.
  const FingerprintLibrary another = library.WithoutNameOnlyRows();
  FrameworkOpsMemo of_another(another, nullptr);
  const auto through_another = ComputeFrameworkOps(p, 1, library, &of_another);
  ASSERT_TRUE(through_another.has_value());
  EXPECT_EQ(through_another->ops[0].fingerprints, without->ops[0].fingerprints);
  EXPECT_EQ(of_another.chains(), 0u);
}

}  // namespace
}  // namespace trainscope::analysis
