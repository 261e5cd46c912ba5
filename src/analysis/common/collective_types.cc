#include "analysis/common/collective_types.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace trainscope::analysis {

const char* CollectiveTypeName(CollectiveType type) {
  switch (type) {
    case CollectiveType::kAllReduce:
      return "allreduce";
    case CollectiveType::kAllGather:
      return "allgather";
    case CollectiveType::kReduceScatter:
      return "reducescatter";
    case CollectiveType::kAllToAll:
      return "alltoall";
    case CollectiveType::kBroadcast:
      return "broadcast";
    case CollectiveType::kReduce:
      return "reduce";
    case CollectiveType::kP2p:
      return "p2p";
    case CollectiveType::kOther:
      return "other";
  }
  return "other";
}

CollectiveType ClassifyCollective(std::string_view name) {
  // Lower-case and drop separators so that allReduce, all_reduce, AllReduce,
  // _allgather_base and ncclDevKernel_AllGather_RING all look alike.
  std::string s;
  s.reserve(name.size());
  for (char c : name) {
    if (c == '_' || c == '-' || c == ' ') continue;
    s.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  auto has = [&s](std::string_view w) { return s.find(w) != std::string::npos; };
  if (has("allreduce")) return CollectiveType::kAllReduce;
  if (has("allgather")) return CollectiveType::kAllGather;
  if (has("reducescatter")) return CollectiveType::kReduceScatter;
  if (has("alltoall")) return CollectiveType::kAllToAll;
  if (has("broadcast")) return CollectiveType::kBroadcast;
  if (has("send") || has("recv") || has("receive")) return CollectiveType::kP2p;
  if (has("reduce")) return CollectiveType::kReduce;
  return CollectiveType::kOther;
}

double BusBandwidthFactor(CollectiveType type, int ranks) {
  if (ranks < 2) return 1.0;
  const double n = ranks;
  switch (type) {
    case CollectiveType::kAllReduce:
      return 2.0 * (n - 1) / n;
    case CollectiveType::kAllGather:
    case CollectiveType::kReduceScatter:
    case CollectiveType::kAllToAll:
      return (n - 1) / n;
    default:
      return 1.0;
  }
}

const char* GroupSizeSourceName(GroupSizeSource source) {
  switch (source) {
    case GroupSizeSource::kRecorded:
      return "recorded";
    case GroupSizeSource::kParallelGroups:
      return "parallel_group_info";
    case GroupSizeSource::kLinks:
      return "communication_matrix";
    case GroupSizeSource::kUnknown:
      break;
  }
  return "unknown";
}

std::string_view CollectiveNameOf(const model::RankProfile& profile, size_t i) {
  const model::DeviceEvents& events = profile.device_events;
  const model::Timeline& timeline = profile.timeline;
  if (events.collective[i] != model::kNoIndex) {
    const std::string_view name =
        profile.strings.Get(timeline.collectives[static_cast<size_t>(events.collective[i])].name);
    if (!name.empty()) return name;
  }
  // The launching runtime call and its enclosing ops: the first that is a
  // framework collective (a few levels up at most).
  int32_t op = events.launcher[i];
  for (int depth = 0; op != model::kNoIndex && depth < 8; ++depth) {
    const auto index = static_cast<size_t>(op);
    if (index >= timeline.host_ops.size()) break;
    const std::string_view name = profile.strings.Get(timeline.host_ops.name[index]);
    if (name.starts_with("nccl:") || name.starts_with("c10d::") || name.starts_with("hccl:")) {
      return name;
    }
    op = timeline.host_ops.parent[index];
  }
  return profile.strings.Get(events.name[i]);
}

}  // namespace trainscope::analysis
