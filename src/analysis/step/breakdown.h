// Temporal breakdown of device time (the "GPU time budget") per rank and step.
//
// All quantities are interval unions in int64 ns:
//   total = last end - first start of the activities in scope
//   busy = |U all|, computation = |U compute|, communication = |U comm|,
//   exposed communication = |U comm - U compute|,
//   memcpy / memset = their unions; exposed = minus (U compute U U comm),
//   idle = total - busy.
// kOther device tasks (Ascend event/placeholder/HCCL-internal tasks) are left
// out of every term, window included: that is how CANN's Overlap Analysis
// builds Computing/Communication/Free (see docs/timelines.md).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "analysis/common/breakdown_intervals.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

struct TimeBudget {
  int64_t activities = 0;
  int64_t window_start_ns = 0;
  int64_t window_end_ns = 0;
  int64_t total_ns = 0;
  int64_t busy_ns = 0;
  int64_t computation_ns = 0;
  int64_t communication_ns = 0;
  int64_t exposed_communication_ns = 0;
  int64_t memcpy_ns = 0;
  int64_t exposed_memcpy_ns = 0;
  int64_t memset_ns = 0;
  int64_t exposed_memset_ns = 0;
  int64_t idle_ns = 0;
};

// The budget from the four kinds' intervals (any order, overlaps allowed);
// |activities| and the window are the caller's. Shared by the trace and the
// kernel_details.csv paths so both compute the same quantities the same way.
void FillBudget(std::vector<Interval> compute, std::vector<Interval> comm,
                std::vector<Interval> memcpy, std::vector<Interval> memset, TimeBudget* b);

// The budget of |rows| of a device table given by its start, duration and
// kind columns (KernelTable or Timeline::activities: the one budget path);
// kOther rows are left out.
TimeBudget BudgetOfRows(std::span<const int64_t> start_ns, std::span<const int64_t> duration_ns,
                        std::span<const model::ActivityKind> kinds, std::span<const uint32_t> rows);

// The budget of an explicit activity subset (indices into timeline.activities)
// with |kinds| in place of their kind column (the HTA parity tests relabel).
TimeBudget BudgetOf(const model::Timeline& timeline, const std::vector<model::ActivityKind>& kinds,
                    const std::vector<uint32_t>& members);

}  // namespace trainscope::analysis
