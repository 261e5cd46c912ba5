// RankProfile: everything trainscope knows about one rank of one capture.
//
// Readers in formats/ fill it; analyses in analysis/ only read it. It owns the
// StringPool that all StringIds in its tables refer to.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/numbers.h"
#include "core/row_ledger.h"
#include "core/string_pool.h"
#include "model/communication.h"
#include "model/device_events.h"
#include "model/memory.h"
#include "model/timeline.h"

namespace trainscope::model {

// The profiler's own accounting of one step (step_trace_time.csv), in ns.
struct StepTraceTimes {
  int64_t computing_ns = 0;
  int64_t communication_not_overlapped_ns = 0;
  int64_t overlapped_ns = 0;
  int64_t communication_ns = 0;
  int64_t free_ns = 0;
  int64_t stage_ns = 0;
  int64_t bubble_ns = 0;
  std::optional<int64_t> preparing_ns;

  // The step as CANN's Overlap Analysis divides it: Computing +
  // Communication(Not Overlapped) + Free, saturating on hostile values.
  int64_t overlap_step_ns() const {
    int64_t ns = 0;
    AddSaturating(ns, computing_ns);
    AddSaturating(ns, communication_not_overlapped_ns);
    AddSaturating(ns, free_ns);
    return ns;
  }
};

// One row of step_trace_time.csv.
struct StepTraceRow : StepTraceTimes {
  int32_t step = kNoStep;
  std::optional<int32_t> device_id;
};

// One row of op_statistic.csv (per op type, compute ops only).
struct OpStatisticRow {
  std::string op_type;
  std::string core_type;
  int64_t count = 0;
  int64_t total_ns = 0;
  int64_t min_ns = 0;
  int64_t avg_ns = 0;
  int64_t max_ns = 0;
  double ratio_pct = 0;
};

// One row of l2_cache.csv (experimental_config l2_cache=True): one device
// task's L2 cache rates. Rates are fractions in [0, 1]; unknown (N/A, absent
// or out of range) is nullopt, never 0.
struct L2CacheRow {
  StringId op_name = StringPool::kEmpty;  // interned in RankProfile::strings
  std::optional<int32_t> stream_id;
  std::optional<int32_t> task_id;
  std::optional<double> hit_rate;
  std::optional<double> victim_rate;
};

// One row of api_statistic.csv (CANN host API statistics over the whole
// capture, not per step).
struct ApiStatisticRow {
  std::string level;  // acl, runtime, node, model, hccl (CANN 8.x: communication)
  std::string api_name;
  int64_t total_ns = 0;
  int64_t count = 0;
  std::optional<int64_t> avg_ns;  // absent column or N/A: unknown
  std::optional<int64_t> min_ns;
  std::optional<int64_t> max_ns;
};

// One operator call of operator_details.csv (torch_npu, one row per
// framework op call). Strings are ids into the profile's StringPool.
struct OperatorDetailRow {
  StringId name = StringPool::kEmpty;          // "aten::conv2d", "aclnnMuls", "Conv2D"
  StringId input_shapes = StringPool::kEmpty;  // "32,3,224,224;64,3,11,11;64;;;" (one line)
  StringId source = StringPool::kEmpty;        // innermost user frame of its Call Stack
  std::optional<int64_t> host_total_ns;        // absent column or N/A: unknown
  std::optional<int64_t> device_total_ns;
};

// profiler_info_<rank>.json and profiler_metadata.json, the parts we use.
struct CaptureInfo {
  std::optional<int32_t> rank;  // from the file name or rank_id
  std::string torch_npu_version;
  std::string cann_version;
  std::string profiler_level;  // Level0/1/2
  std::string aic_metrics;
  // The device's name when the profile gives it outside a trace's
  // deviceProperties (the .db export's NPU_INFO: "Ascend910B"); "" unknown.
  std::string device_name;
  std::optional<int32_t> world_size;
  std::map<std::string, std::string> env;         // ENV_VARIABLES
  std::map<std::string, int64_t> parallel_sizes;  // tensor_model_parallel_size, ...
  // parallel_group_info: each process group this rank is in ("tp", "pp",
  // "dp", ...), its rank in the group and the group's global ranks.
  struct ParallelGroup {
    std::string hccl_name;  // the key, e.g. "group_name_19" (HCCL's group name)
    std::string name;
    int32_t group_rank = -1;
    std::vector<int32_t> global_ranks;
  };
  std::vector<ParallelGroup> parallel_groups;
};

// Which file the device events came from: it decides how a step's window is
// read (kernel_details.csv's Step Id or the trace's step windows).
enum class DeviceEventsSource : uint8_t {
  kNone = 0,
  kKernelDetailsCsv = 1,  // kernel_details.csv (trace tasks joined onto it, if any)
  kTrace = 2,             // Kineto trace or trace_view.json device activities
};

// The device times a trace gave when the rank's device events came from
// kernel_details.csv (the trace's tasks were joined onto those rows): a
// second, independent source for the time budget, kept compact (times and
// kinds only, grouped by step) so the budget can follow whichever source
// agrees with step_trace_time.csv (analysis/step/profiler_agreement.h).
struct DeviceTimesBeside {
  std::string from;            // the trace file
  std::vector<int32_t> steps;  // ascending, distinct (kNoStep for rows outside every step)
  // Rows of steps[k] are [step_begin[k], step_begin[k + 1]); one more entry than steps.
  std::vector<uint32_t> step_begin;
  std::vector<int64_t> start_ns;
  std::vector<int64_t> duration_ns;
  std::vector<ActivityKind> kind;

  bool empty() const { return start_ns.empty(); }
};

// One file (or folder) of a rank's directories and what became of it, for
// the input health: every entry of the rank directory and of its
// ASCEND_PROFILER_OUTPUT is listed, read or not.
struct InputFile {
  std::string path;    // relative to the rank directory: "ASCEND_PROFILER_OUTPUT/l2_cache.csv"
  bool read = false;   // a reader opened it (its rows are in a ledger, or it failed: warnings)
  std::string reason;  // not read: why ("" when read)
  bool operator==(const InputFile&) const = default;
};

struct RankProfile {
  std::string source_dir;       // the *_ascend_pt (or trace) directory
  std::string profiler_output;  // the ASCEND_PROFILER_OUTPUT directory
  int32_t rank = -1;            // -1 when unknown
  CaptureInfo info;
  StringPool strings;
  // All device work of the rank (kernel_details.csv, the .db export or the
  // trace's device activities, joined when both exist).
  DeviceEvents device_events;
  DeviceEventsSource device_events_source = DeviceEventsSource::kNone;
  std::string device_events_from;  // the file the rows came from, for messages
  DeviceTimesBeside trace_times;   // the trace's own device times, when joined onto the CSV
  std::vector<StepTraceRow> step_trace;
  // The step_trace_time.csv row of |step|, or null.
  const StepTraceRow* StepTraceOf(int32_t step) const {
    for (const StepTraceRow& row : step_trace) {
      if (row.step == step) return &row;
    }
    return nullptr;
  }
  std::vector<OpStatisticRow> op_statistic;
  std::vector<ApiStatisticRow> api_statistic;  // api_statistic.csv (Level1+); empty if absent
  bool has_api_statistic = false;              // the file was read (its rows may all be skipped)
  std::vector<OperatorDetailRow> operator_details;  // operator_details.csv; empty if absent
  std::vector<L2CacheRow> l2_cache;                 // l2_cache.csv; empty if absent
  bool has_l2_cache = false;  // the file was read (its rows may all be skipped)
  Timeline timeline;  // from trace files (Kineto JSON, trace_view.json); present=false if none
  // Where the kernels' step numbers come from, for the reports ("" = no
  // steps: the whole capture is analysed as one).
  std::string steps_from;
  CommunicationData communication;  // communication(_matrix).json (Ascend); empty otherwise
  // memory_record.csv, operator_memory.csv, npu_module_mem.csv (Ascend,
  // profile_memory=True; npu_module_mem at every level); empty otherwise.
  // Kineto's [memory] events stay in timeline.memory.
  MemoryData memory;
  // One ledger per file read, in read order. Files that were absent are
  // listed in missing_files with the reason they matter.
  std::vector<RowLedger> ledgers;
  std::vector<std::string> missing_files;
  std::vector<std::string> warnings;  // file-level problems that did not stop the load
  // Every entry of the rank directory and its ASCEND_PROFILER_OUTPUT, read
  // or not (formats/ascend/rank_inventory.h); empty for a trace file.
  std::vector<InputFile> inventory;
};

}  // namespace trainscope::model
