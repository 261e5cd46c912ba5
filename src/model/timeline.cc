#include "model/timeline.h"

namespace trainscope::model {

int32_t HostOps::ThreadOf(int64_t pid, int64_t tid) {
  const HostThread& last = threads[static_cast<size_t>(last_thread_)];
  if (last.pid == pid && last.tid == tid) return last_thread_;
  auto [it, added] = thread_index_.try_emplace({pid, tid}, static_cast<int32_t>(threads.size()));
  if (added) threads.push_back(HostThread{pid, tid});
  last_thread_ = it->second;
  return it->second;
}

}  // namespace trainscope::model
