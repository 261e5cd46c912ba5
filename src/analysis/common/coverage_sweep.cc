#include "analysis/common/coverage_sweep.h"

#include <algorithm>

namespace trainscope::analysis {

void CoverageSweep::Book(int64_t from, int64_t to, const Until& busy_until, Times* time_with) {
  while (from < to) {
    Lanes busy = 0;
    int64_t next = to;  // the first change of the busy set
    for (int k = 0; k < kMaxLanes; ++k) {
      if (busy_until[static_cast<size_t>(k)] <= from) continue;
      busy |= Lane(k);
      next = std::min(next, busy_until[static_cast<size_t>(k)]);
    }
    if (busy == 0) return;  // idle up to |to|: nothing to book
    (*time_with)[busy] += next - from;
    from = next;
  }
}

bool CoverageSweep::Add(Lanes lanes, int64_t start, int64_t end) {
  if (!started_) {
    started_ = true;
    now_ = start;
  }
  if (start < now_) return false;
  Book(now_, start, busy_until_, &time_with_);
  now_ = start;
  for (int k = 0; k < kMaxLanes; ++k) {
    if ((lanes & Lane(k)) != 0)
      busy_until_[static_cast<size_t>(k)] = std::max(busy_until_[static_cast<size_t>(k)], end);
  }
  return true;
}

int64_t CoverageSweep::Covered(Lanes any_of, Lanes none_of) const {
  // What the lanes cover after the last start is booked on a copy: adding
  // more intervals afterwards stays possible.
  Times time = time_with_;
  if (started_) Book(now_, INT64_MAX, busy_until_, &time);
  int64_t total = 0;
  for (size_t set = 1; set < time.size(); ++set) {
    if ((set & any_of) != 0 && (set & none_of) == 0) total += time[set];
  }
  return total;
}

model::RowSet RowsByStart(std::span<const int64_t> start_ns, model::RowSet rows,
                          std::vector<uint32_t>* storage) {
  const auto by_start = [start_ns](uint32_t a, uint32_t b) { return start_ns[a] < start_ns[b]; };
  if (std::is_sorted(rows.begin(), rows.end(), by_start)) return rows;
  storage->assign(rows.begin(), rows.end());
  std::stable_sort(storage->begin(), storage->end(), by_start);
  return *storage;
}

}  // namespace trainscope::analysis
