// What a step's compute kernels cover, read in place from the device table:
// the time they fill in a window, and where compute resumes after a time.
//
// Why in place: the communication summary asks this for every collective.
// Copied out as intervals (16 bytes a kernel) with their running end (8
// more), a step of a million kernels held 24 MB beside the step analyses,
// the largest part of the analysis's memory peak on a 1 GB
// kernel_details.csv (docs/benchmarks.md, "Peak memory below half the
// CSV"). The index keeps the step's rows in start order (the table's own
// list, copied only when it is out of order) and the running end of compute
// at the end of every block of kBlock rows: a query reads at most one block
// more than the copy did.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "model/device_events.h"

namespace trainscope::analysis {

class ComputeCover {
 public:
  ComputeCover(const model::DeviceEvents& events, int32_t step);

  // The first compute kernel's start; INT64_MAX when the step has none.
  int64_t first_start() const { return first_start_; }

  // Time in [from, to) during which at least one compute kernel runs.
  int64_t CoveredIn(int64_t from, int64_t to) const;

  // Compute resuming at or after |t|: the first compute kernel that starts
  // there, and the latest end among those that start before |t|. nullopt
  // when no compute kernel starts before |t| or none at or after it.
  struct Resume {
    int64_t next_start = 0;
    int64_t prior_end = 0;
  };
  std::optional<Resume> ResumeAt(int64_t t) const;

  // |visit(start, end)| for every compute kernel, in start order.
  template <typename Visit>
  void ForEach(Visit&& visit) const {
    for (const uint32_t row : rows_) {
      if (IsCompute(row)) visit(start_ns_[row], End(row));
    }
  }

 private:
  static constexpr size_t kBlock = 64;
  // No compute kernel yet: a running end below every real end.
  static constexpr int64_t kNoEnd = INT64_MIN;

  bool IsCompute(uint32_t row) const { return kind_[row] == model::ActivityKind::kCompute; }
  int64_t End(uint32_t row) const { return start_ns_[row] + duration_ns_[row]; }
  // The first position of rows_ whose start is not before |t|.
  size_t FirstStartingAt(int64_t t) const;

  std::span<const int64_t> start_ns_;
  std::span<const int64_t> duration_ns_;
  std::span<const model::ActivityKind> kind_;
  std::vector<uint32_t> sorted_;    // the step's rows, when the table's are out of start order
  model::RowSet rows_;              // the step's rows (every kind) in start order
  std::vector<int64_t> block_end_;  // [b]: the latest compute end in rows_[0, (b + 1) * kBlock)
  int64_t first_start_ = INT64_MAX;
};

}  // namespace trainscope::analysis
