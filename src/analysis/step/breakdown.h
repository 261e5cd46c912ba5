// Temporal breakdown of device time (the "GPU time budget") per rank and step.
//
// All quantities are interval unions in int64 ns:
//   total = last end - first start of the activities in scope
//   busy = |U all|, computation = |U compute|, communication = |U comm|,
//   exposed communication = |U comm - U compute|,
//   memcpy / memset = their unions; exposed = minus (U compute U U comm),
//   idle = total - busy.
// Ascend event/placeholder/HCCL-internal tasks are not device events (the
// trace_view reader skips them), so they are out of every term, window
// included: that is how CANN's Overlap Analysis builds
// Computing/Communication/Free (see docs/timelines.md).
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

// The budget of |rows| of the DeviceEvents table given by its start,
// duration and kind columns (the one budget path; the HTA parity tests pass
// relabelled kinds).
TimeBudget BudgetOfRows(std::span<const int64_t> start_ns, std::span<const int64_t> duration_ns,
                        std::span<const model::ActivityKind> kinds, model::RowSet rows);

// The budget of the window [window_start, window_end) (a GPU iteration,
// model/iteration.h): |rows| clipped to it, total = the window's length, so
// idle includes the device waiting for the host. Activities counts the rows
// with time in the window.
TimeBudget BudgetInWindow(std::span<const int64_t> start_ns, std::span<const int64_t> duration_ns,
                          std::span<const model::ActivityKind> kinds, model::RowSet rows,
                          int64_t window_start, int64_t window_end);

}  // namespace trainscope::analysis
