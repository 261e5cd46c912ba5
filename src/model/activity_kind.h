// ActivityKind: what a row of device work is, the one kind enum of the model.
//
// The DeviceEvents table and every analysis use it, so a kind means the same
// thing whichever file the row came from: kernel_details.csv rows are
// kCompute or kCommunication; trace rows can be any kind.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/enum_names.h"

namespace trainscope::model {

enum class ActivityKind : uint8_t {
  kCompute = 0,        // kernels / AI_CORE, AI_VECTOR_CORE, MIX_*, AI_CPU tasks
  kCommunication = 1,  // collectives (NCCL/RCCL kernels, HCCL ops, hcom_*, DeepEP, ...)
  kMemcpy = 2,
  kMemset = 3,
  // Device tasks that are none of these (Ascend event record/wait,
  // placeholders, SDMA of HCCL's own task streams) are not device events:
  // the trace_view reader counts them as skipped rows, as CANN's Overlap
  // Analysis leaves them out of its Computing track.
};

// The kinds as timeline class rules (--classes) and the exports spell them.
inline constexpr EnumNames<ActivityKind, 4> kActivityKindNames{
    {{{ActivityKind::kCompute, "compute"},
      {ActivityKind::kCommunication, "communication"},
      {ActivityKind::kMemcpy, "memcpy"},
      {ActivityKind::kMemset, "memset"}}},
    "?"};

inline std::string_view ActivityKindName(ActivityKind kind) {
  return kActivityKindNames.Name(kind);
}

// memcpy or memset: the "memory" of the family rules and the Other lane.
inline bool IsMemoryTraffic(ActivityKind kind) {
  return kind == ActivityKind::kMemcpy || kind == ActivityKind::kMemset;
}

}  // namespace trainscope::model
