// The step_trace_time.csv numbers of one planted step, computed the way CANN's
// Overlap Analysis does: unions of compute and communication intervals over
// the window [first kernel start, last kernel end].
#pragma once

#include <cstdint>
#include <vector>

#include "synth/model_schedule.h"

namespace trainscope::synth {

struct StepTrace {
  int64_t window_start_ns = 0;
  int64_t window_end_ns = 0;
  int64_t computing_ns = 0;            // |union of compute kernels|
  int64_t communication_ns = 0;        // |union of comm kernels|
  int64_t comm_not_overlapped_ns = 0;  // |comm union \ compute union|
  int64_t free_ns = 0;                 // window - |union of all|
  int64_t stage_ns() const { return window_end_ns - window_start_ns; }
  int64_t overlapped_ns() const { return communication_ns - comm_not_overlapped_ns; }
};

StepTrace ComputeStepTrace(const StepPlan& plan);

struct TimeInterval {
  int64_t begin;
  int64_t end;
};

// The same quantities as interval lists: the segments of trace_view.json's
// "Overlap Analysis" process. Their lengths sum to the StepTrace fields.
struct StepSegments {
  std::vector<TimeInterval> computing;
  std::vector<TimeInterval> communication;
  std::vector<TimeInterval> comm_not_overlapped;  // communication \ computing
  std::vector<TimeInterval> free;                 // window \ (computing U communication)
};

StepSegments ComputeStepSegments(const StepPlan& plan);

}  // namespace trainscope::synth
