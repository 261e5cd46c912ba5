// The kinds of collective communication, named from an op or kernel name
// (HCCL's hcom_allReduce_, NCCL's ncclDevKernel_AllGather_RING, Kineto's
// "Collective name"). Shared by the timeline (send/receive waits are a
// pipeline's) and the cross-rank analysis.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "model/rank_profile.h"

namespace trainscope::analysis {

enum class CollectiveType : uint8_t {
  kAllReduce = 0,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kBroadcast,
  kReduce,
  kP2p,
  kOther,
};
inline constexpr int kCollectiveTypes = 8;

const char* CollectiveTypeName(CollectiveType type);
// From an op/kernel name or a Kineto "Collective name" (case-insensitive).
CollectiveType ClassifyCollective(std::string_view name);
// nccl-tests bus-bandwidth factor for |ranks| participants.
double BusBandwidthFactor(CollectiveType type, int ranks);

// Where a collective's group size came from, the most direct first. The
// size is the group's, never the number of ranks whose profiles were read.
enum class GroupSizeSource : uint8_t {
  kUnknown = 0,  // the export does not say: bus bandwidth is not computed
  kRecorded,  // the op's own record: Kineto "Group size" / "Process Group Ranks", HCCL "rank_size"
  kParallelGroups,  // profiler_metadata.json parallel_group_info: the group's global_ranks
  kLinks,           // largest group-local rank in communication_matrix.json + 1 (a lower bound)
};
// "recorded", "parallel_group_info", "communication_matrix", "unknown".
const char* GroupSizeSourceName(GroupSizeSource source);

// The name that says which collective device event |i| of |profile| runs:
// the trace's collective arguments ("Collective name"), else the framework
// op that launched it (nccl:all_to_all, c10d::allreduce_), else the event's
// own name. NCCL runs all-to-all as SendRecv kernels, so the kernel name
// alone would make an all-to-all look like pipeline send/receive.
std::string_view CollectiveNameOf(const model::RankProfile& profile, size_t i);

}  // namespace trainscope::analysis
