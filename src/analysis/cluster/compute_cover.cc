#include "analysis/cluster/compute_cover.h"

#include <algorithm>

#include "analysis/common/coverage_sweep.h"

namespace trainscope::analysis {

ComputeCover::ComputeCover(const model::DeviceEvents& events, int32_t step)
    : start_ns_(events.start_ns), duration_ns_(events.duration_ns), kind_(events.kind) {
  rows_ = RowsByStart(start_ns_, events.RowsOf(step), &sorted_);
  block_end_.reserve((rows_.size() + kBlock - 1) / kBlock);
  int64_t running = kNoEnd;
  for (size_t i = 0; i < rows_.size(); ++i) {
    const uint32_t row = rows_[i];
    if (IsCompute(row)) {
      first_start_ = std::min(first_start_, start_ns_[row]);
      running = std::max(running, End(row));
    }
    if ((i + 1) % kBlock == 0 || i + 1 == rows_.size()) block_end_.push_back(running);
  }
}

size_t ComputeCover::FirstStartingAt(int64_t t) const {
  const auto it = std::lower_bound(rows_.begin(), rows_.end(), t,
                                   [this](uint32_t row, int64_t v) { return start_ns_[row] < v; });
  return static_cast<size_t>(it - rows_.begin());
}

int64_t ComputeCover::CoveredIn(int64_t from, int64_t to) const {
  if (to <= from) return 0;
  // Every compute kernel before the first block whose running end passes
  // |from| ends by |from|: none of them covers any of the window.
  const auto block = std::upper_bound(block_end_.begin(), block_end_.end(), from);
  int64_t covered = 0;
  int64_t reached = from;  // [from, reached) is counted
  for (size_t i = static_cast<size_t>(block - block_end_.begin()) * kBlock;
       i < rows_.size() && start_ns_[rows_[i]] < to; ++i) {
    const uint32_t row = rows_[i];
    if (!IsCompute(row)) continue;
    const int64_t start = std::max(start_ns_[row], reached);
    const int64_t end = std::min(End(row), to);
    if (end > start) {
      covered += end - start;
      reached = end;
    }
  }
  return covered;
}

std::optional<ComputeCover::Resume> ComputeCover::ResumeAt(int64_t t) const {
  const size_t before = FirstStartingAt(t);  // rows_[0, before) start before t
  size_t next = before;
  while (next < rows_.size() && !IsCompute(rows_[next])) ++next;
  if (next == rows_.size()) return std::nullopt;
  const size_t block = before / kBlock;
  int64_t prior_end = block > 0 ? block_end_[block - 1] : kNoEnd;
  for (size_t i = block * kBlock; i < before; ++i) {
    if (IsCompute(rows_[i])) prior_end = std::max(prior_end, End(rows_[i]));
  }
  if (prior_end == kNoEnd) return std::nullopt;
  return Resume{start_ns_[rows_[next]], prior_end};
}

}  // namespace trainscope::analysis
