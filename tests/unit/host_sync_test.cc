// Host synchronisation in a step: the device idle a sync
// costs is the idle until the host's next work, at most the host's wait.
#include "analysis/step/host_sync.h"

#include <gtest/gtest.h>

#include "model/rank_profile.h"
#include "time_units.h"
#include "unit/profile_builder.h"

namespace trainscope::analysis {
namespace {

using testing::kMs;

using testing::AddHostOp;
using testing::AddKernel;

TEST(HostSync, TheIdleBehindASyncIsBoundedByTheHostsWait) {
  model::RankProfile p;
  AddKernel(&p, 0, 10 * kMs);         // the queue the sync waits for
  AddKernel(&p, 13 * kMs, 20 * kMs);  // the host's next work, 3 ms after the sync returns
  const int32_t item = AddHostOp(&p, "aten::_local_scalar_dense", 1 * kMs, 11 * kMs);
  AddHostOp(&p, "cudaStreamSynchronize", 2 * kMs, 10 * kMs + 500'000, item);  // waits 8.5 ms
  AddHostOp(&p, "aten::mm", 11 * kMs, 12 * kMs);                              // not a sync
  // A sync on an empty queue: 0.1 ms of wait bounds its cost, not the
  // 2.9 ms of idle after it (that idle is host-bound's).
  AddKernel(&p, 23 * kMs, 25 * kMs);
  AddHostOp(&p, "cudaDeviceSynchronize", 20 * kMs, 20 * kMs + 100'000);
  const std::vector<uint32_t> calls = FindHostSyncCalls(p);
  ASSERT_EQ(calls.size(), 2u);
  const auto stats = ComputeHostSync(p, 1, calls);
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->syncs, 2);
  EXPECT_EQ(stats->item_calls, 1);
  EXPECT_EQ(stats->sync_ns, 8'500'000 + 100'000);
  EXPECT_EQ(stats->idle_ns, 3 * kMs + 100'000);
}

TEST(HostSync, NoTraceMeansUnknownNotZero) {
  model::RankProfile p;
  AddKernel(&p, 0, kMs);
  EXPECT_FALSE(ComputeHostSync(p, 1, FindHostSyncCalls(p)).has_value());
  EXPECT_TRUE(IsHostSyncCall("aclrtSynchronizeStream"));
  EXPECT_TRUE(IsHostSyncCall("hipDeviceSynchronize"));
  EXPECT_FALSE(IsHostSyncCall("cudaLaunchKernel"));
}

}  // namespace
}  // namespace trainscope::analysis
