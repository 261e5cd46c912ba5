// ActivityKind: what a row of device work is, the one kind enum of the model.
//
// Both device tables (KernelTable, Timeline::activities) and every analysis
// use it, so a kind means the same thing whichever file the row came from:
// kernel_details.csv rows are kCompute or kCommunication; trace rows can be
// any kind (KernelTable leaves kOther rows out).
#pragma once

#include <cstdint>

namespace trainscope::model {

enum class ActivityKind : uint8_t {
  kCompute = 0,        // kernels / AI_CORE, AI_VECTOR_CORE, MIX_*, AI_CPU tasks
  kCommunication = 1,  // collectives (NCCL/RCCL kernels, HCCL ops, hcom_*, DeepEP, ...)
  kMemcpy = 2,
  kMemset = 3,
  // Device tasks that are neither compute, communication nor memory traffic:
  // Ascend event record/wait, placeholders, SDMA of HCCL's own task streams.
  // Kept for completeness but left out of the time budget (CANN's Overlap
  // Analysis leaves them out too, see analysis/step/breakdown.h).
  kOther = 4,
};

const char* ActivityKindName(ActivityKind kind);

// memcpy or memset: the "memory" of the family rules and the Other lane.
inline bool IsMemoryTraffic(ActivityKind kind) {
  return kind == ActivityKind::kMemcpy || kind == ActivityKind::kMemset;
}

}  // namespace trainscope::model
