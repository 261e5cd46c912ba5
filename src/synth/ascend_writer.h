// The per-rank files other than kernel_details.csv: step_trace_time.csv,
// op_statistic.csv, profiler_info_<rank>.json and profiler_metadata.json.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "synth/kernel_catalog.h"
#include "synth/kernel_details_writer.h"
#include "synth/step_trace.h"
#include "synth/synth.h"

namespace trainscope::synth {

// What a generation of torch_npu/CANN stamps on its output.
struct VariantTraits {
  int64_t epoch_base_ns;          // when the synthetic capture starts
  const char* dir_timestamp;      // the <ts> of <worker>_<ts>_ascend_pt
  const char* torch_npu_version;  // nullptr: field absent (pre-2025 data)
  const char* cann_version;
  bool rank_id_as_string;
};
VariantTraits TraitsOf(HeaderVariant variant);

struct StepTraceRow {
  int step = 0;
  StepTrace trace;
  int64_t preparing_ns = 0;
};

Status WriteStepTraceTime(const std::string& path, HeaderVariant variant, int device_id,
                          const std::vector<StepTraceRow>& rows);
Status WriteOpStatistic(const std::string& path, HeaderVariant variant, int device_id,
                        const KernelCatalog& catalog, const std::vector<SpecTotals>& totals);
Status WriteProfilerInfo(const std::string& path, HeaderVariant variant, int rank, int64_t start_ns,
                         int64_t end_ns, bool with_stack);
// distributed_args and parallel_group_info as MindSpeed writes them: the
// default job's FSDP groups, or every group of the parallel layout.
Status WriteProfilerMetadata(const std::string& path, int rank, const SynthOptions& options);

}  // namespace trainscope::synth
