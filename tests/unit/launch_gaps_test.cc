// Device idle behind kernel launches: a gap is the host's
// when the work that ends it was launched after the device went idle.
#include "analysis/step/launch_gaps.h"

#include <gtest/gtest.h>

#include "model/rank_profile.h"
#include "unit/profile_builder.h"

namespace trainscope::analysis {
namespace {

constexpr int64_t kUs = 1'000;

using testing::AddKernel;

int32_t Launch(model::RankProfile* p, int64_t start, int64_t end) {
  return testing::AddHostOp(p, "cudaLaunchKernel", start, end);
}

TEST(LaunchGaps, AGapIsTheHostsWhenTheNextWorkWasLaunchedAfterItBegan) {
  model::RankProfile p;
  // Kernel A runs 0-100 us. Kernel B was launched at 10-15 us (the queue
  // was full): the 100-150 us gap before it is not the launch rate's.
  AddKernel(&p, 0, 100 * kUs, Launch(&p, 0, 5 * kUs));
  AddKernel(&p, 150 * kUs, 200 * kUs, Launch(&p, 10 * kUs, 15 * kUs));
  // Kernel C's launch ended at 230 us, after B ended (200 us): the device
  // waited 200-240 us for the host.
  AddKernel(&p, 240 * kUs, 260 * kUs, Launch(&p, 220 * kUs, 230 * kUs));
  // Kernel D has no known launch: its gap (260-300 us) is not judged.
  AddKernel(&p, 300 * kUs, 310 * kUs, model::kNoIndex);
  const auto stats = ComputeLaunchGaps(p, 1);
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->gaps, 3);
  EXPECT_EQ(stats->idle_ns, (50 + 40 + 40) * kUs);
  EXPECT_EQ(stats->gaps_with_launch, 2);
  EXPECT_EQ(stats->launch_bound_gaps, 1);
  EXPECT_EQ(stats->launch_bound_ns, 40 * kUs);
  // Delays: A -5 us, B 135 us, C 10 us: the median is 10 us.
  ASSERT_TRUE(stats->median_launch_delay_ns);
  EXPECT_EQ(*stats->median_launch_delay_ns, 10 * kUs);
}

TEST(LaunchGaps, OverlappingStreamsCloseNoGapAndNoLaunchesMeansUnknown) {
  model::RankProfile p;
  AddKernel(&p, 0, 100 * kUs, model::kNoIndex);
  AddKernel(&p, 50 * kUs, 150 * kUs, model::kNoIndex);  // another stream, overlapping
  EXPECT_FALSE(ComputeLaunchGaps(p, 1).has_value());    // no launch known: unknown, not 0
  AddKernel(&p, 150 * kUs, 160 * kUs, Launch(&p, 200 * kUs, 210 * kUs));  // touching: no gap
  const auto stats = ComputeLaunchGaps(p, 1);
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->gaps, 0);
  EXPECT_EQ(stats->idle_ns, 0);
  EXPECT_EQ(stats->launch_bound_ns, 0);
}

}  // namespace
}  // namespace trainscope::analysis
