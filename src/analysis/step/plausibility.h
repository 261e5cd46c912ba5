// Is the device timeline physically possible?
//
// Kernels of one stream run one after another, so in any step the kernel
// time of S streams is at most S times the time they cover. A profile that
// breaks this was damaged on its way to us: timestamps rounded (a
// spreadsheet rewriting Start Time as 1.76425E+15 gives every kernel of a
// millisecond the same start), rows merged from two captures, clocks of two
// devices mixed. Its budget, gaps and motifs would be confident nonsense,
// so the rank says so instead.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/rank_profile.h"

namespace trainscope::analysis {

struct StepPlausibility {
  int32_t step = model::kNoStep;
  int64_t compute_kernels = 0;
  int64_t streams = 0;             // distinct (device, stream) of its compute kernels
  int64_t kernel_time_ns = 0;      // summed compute durations
  int64_t covered_ns = 0;          // |union of compute intervals|
  int64_t same_start_kernels = 0;  // compute kernels starting exactly when the previous one of
                                   // their stream starts
  double concurrency = 0;          // kernel_time / covered: at most `streams` when possible
  // The profiler's step (step_trace_time.csv: Computing + Communication(Not
  // Overlapped) + Free; 0 when unknown) and the device events of the step
  // (any kind) that last longer than it: CANN's accounting of a step
  // includes each of its tasks, so none can.
  int64_t profiler_step_ns = 0;
  int64_t longer_than_step = 0;
  bool plausible = true;
};

// A serial stream gives concurrency <= streams; the slack absorbs start and
// duration rounding at the exports' 1 us / 1 ns resolutions (on the corpus
// every Ascend rank measures 1.000 with one or two streams).
inline constexpr double kConcurrencySlack = 0.1;
// Same-start kernels of one stream: a few happen at µs resolution for
// back-to-back tiny kernels; a tenth of them cannot.
inline constexpr double kSameStartShare = 0.1;

// The worst step of |profile| (highest concurrency over its bound, then most
// same-start kernels), or nullopt when there are no compute kernels.
std::optional<StepPlausibility> WorstStepPlausibility(const model::RankProfile& profile);

// The rank's warning, or "" when every step is plausible: names the file the
// device events came from, the step, what is impossible and what it means.
std::string PlausibilityWarning(const model::RankProfile& profile);

}  // namespace trainscope::analysis
