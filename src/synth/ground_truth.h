// ground_truth.json: what the generator planted, for tests and for checking
// that trainscope's detectors find exactly that.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "synth/kernel_catalog.h"
#include "synth/memory_writer.h"
#include "synth/model_schedule.h"
#include "synth/step_trace.h"
#include "synth/synth.h"

namespace trainscope::synth {

struct RankStepTruth {
  int step = 0;
  int64_t compute_kernels = 0;
  int64_t comm_kernels = 0;
  int64_t skew_ns = 0;        // first-kernel start minus the earliest rank's
  int64_t start_wait_ns = 0;  // time in the step-start all-reduce waiting for the slowest rank
  StepTrace trace;
};

struct RankTruth {
  int rank = 0;
  int device_id = 0;
  std::string dir;  // relative to the job directory
  std::vector<RankStepTruth> steps;
};

struct JobTruth {
  SynthOptions options;
  ScheduleShape shape;
  PatternCounts counts;  // per step per rank (identical on every rank and step)
  std::vector<RankTruth> ranks;
  MemoryTruth memory;  // with options.memory (every rank alike)
};

Status WriteGroundTruth(const std::string& path, const KernelCatalog& catalog,
                        const JobTruth& truth);

}  // namespace trainscope::synth
