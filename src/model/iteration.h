// The iteration of a GPU trace: the step as the host lives it.
//
// A Kineto trace's device activities of one ProfilerStep are its kernels,
// but the step costs more than their busy span: between iterations the
// device waits for the host (data loader, .item(), the optimizer's host
// work). The iteration window runs from this iteration's start to the next
// one's, on the trace's one clock, so that compute, exposed communication
// and idle are shares of what the iteration costs (docs/timelines.md, "The
// iteration"). HTA's temporal breakdown measures the same window; the corpus
// test pins the agreement.
//
// Ascend exports keep the profiler's own step accounting
// (step_trace_time.csv, the kernels' Step Id): no iteration window there.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "model/rank_profile.h"

namespace trainscope::model {

// Two host steps further apart than this are not one run of iterations: the
// capture was sampled (a schedule's wait/warm-up between active windows) or
// the loop stopped. A host step's own gap to the next (the dataloader's
// __next__ outside ProfilerStep, a print) is microseconds; a profiler
// schedule's skipped steps are whole iterations, far above a millisecond.
inline constexpr int64_t kIterationRunGapNs = 1'000'000;

struct Iteration {
  int32_t step = kNoStep;
  int64_t start_ns = 0;  // the window on the trace's clock
  int64_t end_ns = 0;
  int64_t host_start_ns = 0;  // the host's step window (ProfilerStep#N or the repeated annotation)
  int64_t host_end_ns = 0;
  // Whether the window ends where the next iteration starts (false: the
  // last iteration of a run, which ends where its host or device work ends).
  bool ends_at_next = false;
  int64_t span_ns() const { return end_ns - start_ns; }
  int64_t host_span_ns() const { return host_end_ns - host_start_ns; }
};

// Whether |profile|'s steps are iterations: a trace's device activities with
// host step windows, not an Ascend export (whose steps the profiler itself
// accounts).
bool HasIterations(const RankProfile& profile);

// The index of host step |step| in profile.timeline.steps; nullopt when it
// is not one.
std::optional<size_t> HostStepIndex(const std::vector<Step>& steps, int32_t step);

// The iteration of |step|, nullopt when the profile has no iterations or the
// step is not one of its host steps.
//
// start = the earlier of the step's first device activity and the moment the
// device could start it (the later of the host step's start and the previous
// step's last device end), never before the capture's first device activity;
// end = the next iteration's start when the next host step follows within
// kIterationRunGapNs, else the later of the host step's end and the step's
// last device end.
std::optional<Iteration> IterationOf(const RankProfile& profile, int32_t step);

// The median iteration span and the median host step span over the
// iterations that end at the next one (the steady ones); nullopt when none.
struct IterationCheck {
  int64_t median_iteration_ns = 0;
  int64_t median_host_step_ns = 0;
  int64_t iterations = 0;
};
std::optional<IterationCheck> CheckIterations(const RankProfile& profile);

}  // namespace trainscope::model
