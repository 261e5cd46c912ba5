// The device idle charged to the host (analysis/step/host_idle_spans.h):
// the same time the step measures count (input_bound, host_sync,
// launch_gaps), each stretch once, the loader first, then syncs, then late
// launches.
#include "analysis/step/host_idle_spans.h"

#include <gtest/gtest.h>

#include <vector>

#include "analysis/step/host_sync.h"
#include "analysis/step/launch_gaps.h"
#include "model/rank_profile.h"
#include "time_units.h"
#include "unit/profile_builder.h"

namespace trainscope::analysis {
namespace {

using testing::kMs;

using testing::AddHostOp;
using testing::AddKernel;

HostIdleTimes Totals(const std::vector<HostIdleSpan>& spans) {
  HostIdleTimes t;
  for (const HostIdleSpan& s : spans) t.Add(s.kind, s.end_ns - s.start_ns);
  return t;
}

TEST(HostIdleSpans, EachStretchOfIdleHasOneHostCauseAsTheStepMeasuresCountIt) {
  model::RankProfile p;
  // 0-10 ms: work, launched ahead. 10-14 ms: idle while the host is in the
  // data loader (9-14 ms); the next kernel was launched at 14 ms, after the
  // device went idle, but the loader claims the stretch first.
  AddKernel(&p, 0, 10 * kMs, AddHostOp(&p, "cudaLaunchKernel", 0, kMs / 10));
  AddHostOp(&p, "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 9 * kMs, 14 * kMs);
  AddKernel(&p, 14 * kMs + kMs / 10, 20 * kMs,
            AddHostOp(&p, "cudaLaunchKernel", 14 * kMs, 14 * kMs + kMs / 20));
  // 20-23 ms: the host waits in a sync from 15 to 21 ms and launches the
  // next kernel at 22.9 ms: the idle until then is the sync's (host_sync:
  // up to the host's next work, at most its 6 ms wait), though the launch
  // came after the device went idle.
  AddHostOp(&p, "cudaStreamSynchronize", 15 * kMs, 21 * kMs);
  AddKernel(&p, 23 * kMs, 30 * kMs,
            AddHostOp(&p, "cudaLaunchKernel", 22 * kMs, 22 * kMs + 9 * kMs / 10));
  // 30-32 ms: a gap whose kernel was launched long before: a dependency,
  // no host cause.
  AddKernel(&p, 32 * kMs, 33 * kMs, AddHostOp(&p, "cudaLaunchKernel", 25 * kMs, 26 * kMs));
  // 33-35 ms: the host launched the next kernel only at 34.9 ms.
  AddKernel(&p, 35 * kMs, 36 * kMs,
            AddHostOp(&p, "cudaLaunchKernel", 34 * kMs + kMs / 2, 34 * kMs + 9 * kMs / 10));

  const DataLoaderCalls loader = FindDataLoaderCalls(p);
  const std::vector<uint32_t> syncs = FindHostSyncCalls(p);
  const std::vector<HostIdleSpan> spans = HostIdleSpans(p, loader, syncs);
  for (size_t i = 1; i < spans.size(); ++i)
    EXPECT_LE(spans[i - 1].end_ns, spans[i].start_ns) << "disjoint, by start";
  const HostIdleTimes t = Totals(spans);
  EXPECT_EQ(t.data_loader_ns, 4 * kMs);        // 10-14 ms
  EXPECT_EQ(t.host_sync_ns, 3 * kMs);          // 20-23 ms
  EXPECT_EQ(t.launch_ns, kMs / 10 + 2 * kMs);  // 14-14.1 and 33-35 ms

  // The step measures count the same sync and loader time.
  const auto sync = ComputeHostSync(p, 1, syncs);
  ASSERT_TRUE(sync.has_value());
  EXPECT_EQ(sync->idle_ns, t.host_sync_ns);
  const auto input = ComputeInputBound(p, 1, loader);
  ASSERT_TRUE(input.has_value());
  EXPECT_EQ(input->idle_in_window_ns, t.data_loader_ns);
  // Launch gaps count a gap whole, whatever else the host did in it.
  const auto launches = ComputeLaunchGaps(p, 1);
  ASSERT_TRUE(launches.has_value());
  EXPECT_EQ(launches->launch_bound_ns, (4 * kMs + kMs / 10) + 3 * kMs + 2 * kMs);
}

TEST(HostIdleSpans, NoHostSideMeansNoSpans) {
  model::RankProfile p;
  AddKernel(&p, 0, kMs);
  AddKernel(&p, 2 * kMs, 3 * kMs);
  EXPECT_TRUE(HostIdleSpans(p, FindDataLoaderCalls(p), FindHostSyncCalls(p)).empty());
}

}  // namespace
}  // namespace trainscope::analysis
