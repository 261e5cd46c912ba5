// Host synchronisation in a step (issue 13 item 6): the device idle a sync
// costs is the idle until the host's next work, at most the host's wait.
#include "analysis/step/host_sync.h"

#include <gtest/gtest.h>

#include "model/rank_profile.h"

namespace trainscope::analysis {
namespace {

constexpr int64_t kMs = 1'000'000;

void Kernel(model::RankProfile* p, int64_t start, int64_t end) {
  model::DeviceEvent e;
  e.name = p->strings.Intern("gemm");
  e.op_type = e.name;
  e.step = 1;
  e.start_ns = start;
  e.duration_ns = end - start;
  p->device_events.Append(e);
}

int32_t HostOp(model::RankProfile* p, const char* name, int64_t start, int64_t end,
               int32_t parent = model::kNoIndex) {
  model::HostOp op;
  op.name = p->strings.Intern(name);
  op.start_ns = start;
  op.duration_ns = end - start;
  op.parent = parent;
  p->timeline.host_ops.Append(op);
  return static_cast<int32_t>(p->timeline.host_ops.size() - 1);
}

TEST(HostSync, TheIdleBehindASyncIsBoundedByTheHostsWait) {
  model::RankProfile p;
  Kernel(&p, 0, 10 * kMs);         // the queue the sync waits for
  Kernel(&p, 13 * kMs, 20 * kMs);  // the host's next work, 3 ms after the sync returns
  const int32_t item = HostOp(&p, "aten::_local_scalar_dense", 1 * kMs, 11 * kMs);
  HostOp(&p, "cudaStreamSynchronize", 2 * kMs, 10 * kMs + 500'000, item);  // waits 8.5 ms
  HostOp(&p, "aten::mm", 11 * kMs, 12 * kMs);                              // not a sync
  // A sync on an empty queue: 0.1 ms of wait bounds its cost, not the
  // 2.9 ms of idle after it (that idle is host-bound's).
  Kernel(&p, 23 * kMs, 25 * kMs);
  HostOp(&p, "cudaDeviceSynchronize", 20 * kMs, 20 * kMs + 100'000);
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
  Kernel(&p, 0, kMs);
  EXPECT_FALSE(ComputeHostSync(p, 1, FindHostSyncCalls(p)).has_value());
  EXPECT_TRUE(IsHostSyncCall("aclrtSynchronizeStream"));
  EXPECT_TRUE(IsHostSyncCall("hipDeviceSynchronize"));
  EXPECT_FALSE(IsHostSyncCall("cudaLaunchKernel"));
}

}  // namespace
}  // namespace trainscope::analysis
