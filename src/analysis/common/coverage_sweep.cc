#include "analysis/common/coverage_sweep.h"

#include <algorithm>
#include <bit>

namespace trainscope::analysis {

void CoverageSweep::Book(int64_t from, int64_t to, Lanes used, const Until& busy_until,
                         Times* time_with) {
  while (from < to) {
    Lanes busy = 0;
    int64_t next = to;  // the first change of the busy set
    for (unsigned rest = used; rest != 0; rest &= rest - 1) {
      const auto k = static_cast<size_t>(std::countr_zero(rest));
      if (busy_until[k] <= from) continue;
      busy |= Lane(static_cast<int>(k));
      next = std::min(next, busy_until[k]);
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
  lanes &= static_cast<Lanes>((1u << kMaxLanes) - 1);
  if (now_ < busy_until_latest_) Book(now_, start, used_, busy_until_, &time_with_);
  now_ = start;
  for (unsigned rest = lanes; rest != 0; rest &= rest - 1) {
    const auto k = static_cast<size_t>(std::countr_zero(rest));
    busy_until_[k] = std::max(busy_until_[k], end);
  }
  used_ |= lanes;
  busy_until_latest_ = std::max(busy_until_latest_, end);
  return true;
}

int64_t CoverageSweep::Covered(Lanes any_of, Lanes none_of) const {
  // What the lanes cover after the last start is booked on a copy: adding
  // more intervals afterwards stays possible.
  Times time = time_with_;
  if (started_) Book(now_, INT64_MAX, used_, busy_until_, &time);
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
