#include "model/timeline.h"

namespace trainscope::model {

int32_t ThreadTable::ThreadOf(int64_t pid, int64_t tid) {
  const HostThread& last = threads[static_cast<size_t>(last_thread_)];
  if (last.pid == pid && last.tid == tid) return last_thread_;
  // A trace has tens of threads, and the events of two or three alternate
  // (a flow's start on a host thread, its end on a stream): a scan of a few
  // cache lines finds them before a tree lookup would.
  constexpr size_t kScanned = 32;
  if (threads.size() <= kScanned) {
    for (size_t i = 0; i < threads.size(); ++i) {
      if (threads[i].pid == pid && threads[i].tid == tid) {
        last_thread_ = static_cast<int32_t>(i);
        return last_thread_;
      }
    }
  }
  auto [it, added] = thread_index_.try_emplace({pid, tid}, static_cast<int32_t>(threads.size()));
  if (added) threads.push_back(HostThread{pid, tid});
  last_thread_ = it->second;
  return it->second;
}

}  // namespace trainscope::model
