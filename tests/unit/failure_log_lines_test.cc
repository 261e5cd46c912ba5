// One c10d / NCCL / launcher / scheduler line of each kind the failure scan
// knows (formats/triage/failure_log_reader.cc), alone in a log: each is
// classified, and each mark of a rank, a world size and the end of training
// is read, through the anchor filter that skips a line holding none of the
// scan's texts (core/anchor_filter.h).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "formats/triage/failure_log_reader.h"

namespace trainscope::formats {
namespace {

using model::FailureKind;

model::FailureLog LogOf(const std::string& text) { return ParseFailureLog(text, "rank.log"); }

TEST(FailureLogLines, EveryKindOfFailureLineIsClassified) {
  const std::vector<std::pair<std::string, FailureKind>> lines = {
      {"[rank3]:[E ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation "
       "timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
       "ran for 600012 milliseconds before timing out.",
       FailureKind::kWatchdogTimeout},
      {"slurmstepd: error: *** JOB 42 ON node1 CANCELLED AT 2024-01-01T00:00:00 DUE TO TIME LIMIT "
       "***",
       FailureKind::kTimeLimit},
      {"slurmstepd: error: *** JOB 42 ON node1 CANCELLED AT 2024-01-01T00:00:00 ***",
       FailureKind::kCancelled},
      {"slurmstepd: error: *** STEP 42.0 DUE TO PREEMPTION ***", FailureKind::kCancelled},
      {"torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
       FailureKind::kChildFailed},
      {"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
       FailureKind::kOutOfMemory},
      {"RuntimeError: OutOfMemoryError: allocation failed", FailureKind::kOutOfMemory},
      {"RuntimeError: NPU out of memory. Tried to allocate 1.00 GiB", FailureKind::kOutOfMemory},
      {"slurmstepd: error: Detected 1 oom-kill event(s) in StepId=42.0", FailureKind::kOutOfMemory},
      {"kernel: Out of memory: Killed process 1234 (python)", FailureKind::kOutOfMemory},
      {"Fatal Python error: Segmentation fault", FailureKind::kSegfault},
      {"Caught signal 11 (SIGSEGV)", FailureKind::kSegfault},
      {"torch.distributed.elastic.multiprocessing.api: rank 1 died from signal 9",
       FailureKind::kSignal},
      {"Signal 15 (SIGTERM) received by PID 1234", FailureKind::kSignal},
      {"process 1234 was terminated (SIGKILL)", FailureKind::kSignal},
      {"Received SIGTERM, shutting down", FailureKind::kSignal},
      {"srun: error: node1: task 3: Killed by signal 9", FailureKind::kSignal},
      {"srun: error: node1: task 3: exited on signal 6", FailureKind::kSignal},
      {"node1:1234:1234 [3] NCCL WARN Net : Connection closed by remote peer",
       FailureKind::kCollectiveError},
      {"RuntimeError: ncclInternalError: Internal check failed.", FailureKind::kCollectiveError},
      {"RuntimeError: ncclSystemError: System call failed.", FailureKind::kCollectiveError},
      {"RuntimeError: ncclRemoteError: A call failed possibly due to a network error.",
       FailureKind::kCollectiveError},
      {"RuntimeError: ncclUnhandledCudaError: Call to CUDA function failed.",
       FailureKind::kCollectiveError},
      {"RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1275", FailureKind::kCollectiveError},
      {"RuntimeError: CUDA error: an illegal memory access was encountered",
       FailureKind::kDeviceError},
      {"NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.", FailureKind::kDeviceError},
      {"GPU 3: uncorrectable ECC error detected", FailureKind::kDeviceError},
      {"cudaErrorLaunchFailure: unspecified launch failure", FailureKind::kDeviceError},
      {"[W compiler_depend.ts:1] work dispatch timeout, seq_num 17", FailureKind::kDispatchTimeout},
  };
  for (const auto& [line, kind] : lines) {
    const model::FailureLog log = LogOf(line + "\n");
    ASSERT_EQ(log.events.size(), 1U) << line;
    EXPECT_EQ(log.events[0].kind, kind) << line;
  }
  const model::FailureLog killed = LogOf("rank 1 died from signal 9\n");
  ASSERT_EQ(killed.events.size(), 1U);
  EXPECT_EQ(killed.events[0].rank, 1);
  EXPECT_EQ(killed.events[0].signal, 9);
}

TEST(FailureLogLines, RanksWorldSizeTheEndAndTheWatchdogsSecondLineAreRead) {
  EXPECT_TRUE(LogOf("Total run time 3600 s\n").finished);
  EXPECT_TRUE(LogOf("Training completed.\n").finished);
  EXPECT_TRUE(LogOf("training finished\n").finished);
  EXPECT_TRUE(LogOf("Training finished after 100 steps\n").finished);
  EXPECT_FALSE(LogOf(" iteration 100/ 1000 | lm loss: 2.3 |\n").finished);

  const model::FailureLog comm = LogOf("node1:1:1 [0] NCCL INFO comm 0xabc rank 3 nRanks 8\n");
  EXPECT_EQ(comm.world_size, 8);
  EXPECT_EQ(comm.ranks.count(3), 1U);

  for (const std::string line : {"[rank6]:[W] something", "[Rank 6] something",
                                 "[PG 0 Rank 6] something", "x Rank 6 something"}) {
    const model::FailureLog log = LogOf(line + "\n");
    EXPECT_EQ(log.ranks.count(6), 1U) << line;
  }

  const model::FailureLog watchdog = LogOf(
      "[rank2]:[E] [PG 0 Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, "
      "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600100 milliseconds\n"
      "[rank2]:[E] [PG 0 Rank 2] Timeout at NCCL work: 9, last enqueued NCCL work: 9, last "
      "completed NCCL work: 8.\n");
  ASSERT_EQ(watchdog.events.size(), 1U);
  EXPECT_EQ(watchdog.events[0].last_enqueued, 9);
  EXPECT_EQ(watchdog.events[0].last_completed, 8);
}

}  // namespace
}  // namespace trainscope::formats
