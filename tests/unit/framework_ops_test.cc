// Framework ops (analysis/step/framework_ops.h): the chain each op's widest
// call runs is matched against the fingerprint library through the rank's
// memo, as the motif mining is: asked without it for every op of every step,
// the library's globs took 62% of a 1.5 GB trace's analysis (3.3x its time;
// docs/benchmarks.md).
#include "analysis/step/framework_ops.h"

#include <gtest/gtest.h>

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
  FrameworkOpsMemo ops_memo(&memo);
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

}  // namespace
}  // namespace trainscope::analysis
