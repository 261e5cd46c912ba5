// communication.json and communication_matrix.json of one rank (ascend-formats
// §2.12-2.13), consistent with the HCCL rows of kernel_details.csv: elapse =
// the op's duration, wait = the time until the last rank arrived, transit =
// the rest.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "synth/kernel_catalog.h"
#include "synth/model_schedule.h"
#include "synth/synth.h"

namespace trainscope::synth {

class CommJsonWriter {
 public:
  CommJsonWriter(const KernelCatalog& catalog, const SynthOptions& options, int rank);
  // |last_arrival_ns[k]|: the latest start of comm op k over every rank.
  void AddStep(int step, const StepPlan& plan, const std::vector<int64_t>& last_arrival_ns);
  Status Write(const std::string& profiler_dir);

 private:
  // The step's communication_matrix.json record from the per-type totals.
  void AddMatrixStep(int step, const std::array<double, 3>& transit_ms,
                     const std::array<double, 3>& size_mb);

  const KernelCatalog& catalog_;
  const SynthOptions& options_;
  int rank_;
  std::string ops_;  // "step<N>": {...} entries
  std::string matrix_;
};

}  // namespace trainscope::synth
