// Which collective a device event runs: NCCL runs an
// all-to-all as SendRecv kernels, so the launching framework op, not the
// kernel name, says it is no pipeline send/receive.
#include "analysis/common/collective_types.h"

#include <gtest/gtest.h>

#include "model/rank_profile.h"

namespace trainscope::analysis {
namespace {

// A SendRecv kernel launched by cudaLaunchKernel inside |framework_op|.
model::RankProfile SendRecvKernelUnder(const std::string& framework_op) {
  model::RankProfile profile;
  model::HostOp outer;
  outer.name = profile.strings.Intern(framework_op);
  outer.start_ns = 0;
  outer.duration_ns = 100;
  profile.timeline.host_ops.Append(outer);
  model::HostOp launch;
  launch.name = profile.strings.Intern("cudaLaunchKernel");
  launch.start_ns = 10;
  launch.duration_ns = 5;
  launch.depth = 1;
  launch.parent = 0;
  profile.timeline.host_ops.Append(launch);
  model::DeviceEvent kernel;
  kernel.name =
      profile.strings.Intern("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, ncclWork*)");
  kernel.kind = model::ActivityKind::kCommunication;
  kernel.start_ns = 20;
  kernel.duration_ns = 50;
  kernel.launcher = 1;
  profile.device_events.Append(kernel);
  return profile;
}

TEST(CollectiveNameOf, TheLaunchingFrameworkOpNamesTheCollective) {
  const model::RankProfile all_to_all = SendRecvKernelUnder("nccl:all_to_all");
  EXPECT_EQ(CollectiveNameOf(all_to_all, 0), "nccl:all_to_all");
  EXPECT_EQ(ClassifyCollective(CollectiveNameOf(all_to_all, 0)), CollectiveType::kAllToAll);
  const model::RankProfile send = SendRecvKernelUnder("nccl:send");
  EXPECT_EQ(ClassifyCollective(CollectiveNameOf(send, 0)), CollectiveType::kP2p);
  // No framework op above the launch: the kernel's own name decides.
  const model::RankProfile bare = SendRecvKernelUnder("aten::mm");
  EXPECT_EQ(ClassifyCollective(CollectiveNameOf(bare, 0)), CollectiveType::kP2p);
}

TEST(CollectiveNameOf, HcclOpNamesClassifyAsTheyRead) {
  EXPECT_EQ(ClassifyCollective("hcom_batchSendRecv__128_3_1"), CollectiveType::kP2p);
  EXPECT_EQ(ClassifyCollective("hcom_allReduce__170_1_1"), CollectiveType::kAllReduce);
  EXPECT_EQ(ClassifyCollective("hcom_alltoallv_"), CollectiveType::kAllToAll);
}

}  // namespace
}  // namespace trainscope::analysis
