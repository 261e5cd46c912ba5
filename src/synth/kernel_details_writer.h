// Writes kernel_details.csv rows for planted kernels, in the column layout
// of one torch_npu/CANN generation, and keeps the per-kernel totals that
// op_statistic.csv needs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "synth/kernel_catalog.h"
#include "synth/model_schedule.h"
#include "synth/out_file.h"
#include "synth/rng.h"
#include "synth/synth.h"

namespace trainscope::synth {

struct SpecTotals {
  int64_t count = 0;
  int64_t total_ns = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
};

// The kernel_details.csv header line (without line end) of |variant|.
std::string KernelDetailsHeader(HeaderVariant variant);

class KernelDetailsWriter {
 public:
  KernelDetailsWriter(const KernelCatalog& catalog, HeaderVariant variant, int device_id,
                      Rng metric_rng);

  Status Open(const std::string& path);
  // Writes the step's compute and comm kernels merged by start time.
  Status WriteStep(int step, const StepPlan& plan);
  Status Close();

  const std::vector<SpecTotals>& totals() const { return totals_; }
  uint64_t bytes_written() const { return file_.bytes_written(); }

 private:
  void ComputeRow(int step, const PlantedKernel& k);
  void CommRow(int step, const PlantedKernel& k);
  void AppendStart(int64_t ns);
  void AppendWait(int64_t ns);
  void AppendPipeMetrics(const KernelSpec& spec, int64_t dur_ns);
  void AppendArithmeticMetrics(const KernelSpec& spec, int64_t dur_ns);

  const KernelCatalog& catalog_;
  HeaderVariant variant_;
  bool legacy_;
  Rng rng_;
  OutFile file_;
  std::string row_prefix_;           // "Step Id" is variable; this follows it
  std::vector<std::string> mid_;     // per spec: ,Name,Type,[OP State,]Core,
  std::vector<std::string> static_;  // per spec: Block Dim .. Context ID,
  std::string comm_na_tail_;         // the N/A columns of a comm row
  const char* comm_core_;
  std::vector<SpecTotals> totals_;
  int64_t last_compute_end_ = -1;
  int64_t last_comm_end_ = -1;
  uint32_t task_id_ = 2001;
};

}  // namespace trainscope::synth
