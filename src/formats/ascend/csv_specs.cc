#include "formats/ascend/csv_specs.h"

namespace trainscope::formats::ascend_csv {
namespace {

using U = ColumnUnit;
constexpr OnBad kSkip = OnBad::kSkipRow;
constexpr OnBad kNote = OnBad::kNote;
constexpr OnBad kIgnore = OnBad::kIgnore;

// A time span that must be valid for the row to mean anything.
constexpr ColumnSpec Span(std::string_view key, std::string_view alias, bool required) {
  return {key, {alias}, required, U::kMicros, OnMissing::kDefault, kNote, kSkip};
}

// kernel_details.csv: Name, start and duration make a kernel; the rest
// describes it (a bad id or dim is noted, the kernel kept).
constexpr ColumnSpec kKernelColumns[] = {
    {"Step Id", {"Step Id", "Step ID"}, false, U::kInt32, OnMissing::kDefault, kNote, kIgnore},
    {"Name", {"Name", "Op Name"}, true, U::kText},
    {"Type", {"Type", "OP Type"}, false, U::kText},
    {"Accelerator Core", {"Accelerator Core", "Task Type"}, false, U::kText},
    {"Stream ID",
     {"Stream ID", "Stream Id"},
     false,
     U::kInt32,
     OnMissing::kDefault,
     kNote,
     kIgnore},
    {"start time",
     {"Start Time(us)", "Task Start Time(us)"},
     true,
     U::kMicros,
     OnMissing::kSkipRow,
     kSkip,
     kSkip},
    {"duration",
     {"Duration(us)", "Task Duration(us)"},
     true,
     U::kMicros,
     OnMissing::kSkipRow,
     kSkip,
     kSkip},
    {"Wait Time",
     {"Wait Time(us)", "Task Wait Time(us)"},
     false,
     U::kMicros,
     OnMissing::kDefault,
     kNote,
     kNote},
    {"Block Dim",
     {"Block Dim", "Block Num"},
     false,
     U::kInt32,
     OnMissing::kDefault,
     kNote,
     kIgnore},
    {"aic_mac_ratio", {"aic_mac_ratio"}, false, U::kRatio},
    {"aic_mte2_ratio", {"aic_mte2_ratio"}, false, U::kRatio},
    {"aiv_vec_ratio", {"aiv_vec_ratio"}, false, U::kRatio},
    {"Input Shapes", {"Input Shapes"}, false, U::kText},
    {"Input Data Types", {"Input Data Types"}, false, U::kText},
    {"Output Shapes", {"Output Shapes"}, false, U::kText},
    {"Output Data Types", {"Output Data Types"}, false, U::kText},
    {"OP State", {"OP State"}, false, U::kText},
};
static_assert(std::size(kKernelColumns) == kKernelColumnCount);

// step_trace_time.csv: every time column is a span; one out of [0, 2^62)
// ns costs the row (it would poison the step budgets), an unparsable one
// reads as 0 (msprof-analyze also turns unparsable cells into 0).
constexpr ColumnSpec kStepTraceColumns[] = {
    {"Device_id", {"Device_id"}, false, U::kInt32, OnMissing::kDefault, kIgnore, kIgnore},
    {"Step", {"Step"}, true, U::kInt32, OnMissing::kDefault, kSkip, kIgnore},
    Span("Computing", "Computing", true),
    Span("Communication(Not Overlapped)", "Communication(Not Overlapped)", false),
    Span("Overlapped", "Overlapped", false),
    Span("Communication", "Communication", true),
    Span("Free", "Free", false),
    Span("Stage", "Stage", false),
    Span("Bubble", "Bubble", false),
    Span("Preparing", "Preparing", false),
};
static_assert(std::size(kStepTraceColumns) == kStepTraceColumnCount);

// op_statistic.csv: Count and Total Time make the statistic (a count or
// total outside [0, 2^62) is not a real run and would overflow the sums).
constexpr ColumnSpec kOpStatisticColumns[] = {
    {"OP Type", {"OP Type", "Type"}, true, U::kText},
    {"Core Type", {"Core Type", "Task Type"}, false, U::kText},
    {"Count", {"Count"}, true, U::kCount, OnMissing::kAsUnparsable, kSkip, kSkip},
    {"Total Time", {"Total Time(us)"}, true, U::kMicros, OnMissing::kAsUnparsable, kSkip, kSkip},
    Span("Min Time", "Min Time(us)", false),
    Span("Avg Time", "Avg Time(us)", false),
    Span("Max Time", "Max Time(us)", false),
    {"Ratio", {"Ratio(%)"}, false, U::kDecimal, OnMissing::kDefault, kNote, kIgnore},
};
static_assert(std::size(kOpStatisticColumns) == kOpStatisticColumnCount);

// l2_cache.csv: the op name makes the row; the rates only describe it (N/A
// is unknown, a bad one is noted and unknown).
constexpr ColumnSpec kL2CacheColumns[] = {
    {"Stream Id",
     {"Stream Id", "Stream ID"},
     false,
     U::kInt32,
     OnMissing::kDefault,
     kNote,
     kIgnore},
    {"Task Id", {"Task Id", "Task ID"}, false, U::kInt32, OnMissing::kDefault, kNote, kIgnore},
    {"Hit Rate", {"Hit Rate"}, false, U::kDecimal, OnMissing::kDefault, kNote, kIgnore},
    {"Victim Rate", {"Victim Rate"}, false, U::kDecimal, OnMissing::kDefault, kNote, kIgnore},
    {"Op Name", {"Op Name", "Kernel Name", "Name"}, true, U::kText},
};
static_assert(std::size(kL2CacheColumns) == kL2CacheColumnCount);

// api_statistic.csv: Count and Time make the statistic, as in op_statistic.
// CANN 8.x prepends Device_id ("host"): not bound, the header lookup is by
// name. Variance is not read.
constexpr ColumnSpec kApiStatisticColumns[] = {
    {"Level", {"Level"}, false, U::kText},
    {"API Name", {"API Name", "Api Name", "Name"}, true, U::kText},
    {"Time",
     {"Time(us)", "Total Time(us)"},
     true,
     U::kMicros,
     OnMissing::kAsUnparsable,
     kSkip,
     kSkip},
    {"Count", {"Count"}, true, U::kCount, OnMissing::kAsUnparsable, kSkip, kSkip},
    Span("Avg", "Avg(us)", false),
    Span("Min", "Min(us)", false),
    Span("Max", "Max(us)", false),
};
static_assert(std::size(kApiStatisticColumns) == kApiStatisticColumnCount);

// operator_details.csv: the name makes the row; stacks and shapes are
// multi-line quoted fields, durations only describe the call (a bad one is
// noted, the call kept). The documented "(µs)" spelling is an alias.
constexpr ColumnSpec kOperatorDetailsColumns[] = {
    {"Name", {"Name", "Operator Name"}, true, U::kText},
    {"Input Shapes", {"Input Shapes"}, false, U::kText},
    {"Call Stack", {"Call Stack", "Call stack"}, false, U::kText},
    {"Host Total Duration",
     {"Host Total Duration(us)", "Host Total Duration(µs)"},
     false,
     U::kMicros,
     OnMissing::kDefault,
     kNote,
     kNote},
    {"Device Total Duration",
     {"Device Total Duration(us)", "Device Total Duration(µs)"},
     false,
     U::kMicros,
     OnMissing::kDefault,
     kNote,
     kNote},
};
static_assert(std::size(kOperatorDetailsColumns) == kOperatorDetailsColumnCount);

// A size in binary MB/KB: empty means unknown (nullopt), text is noted.
constexpr ColumnSpec Size(std::string_view key, std::string_view alias, ColumnUnit unit) {
  return {key, {alias}, false, unit, OnMissing::kDefault, kNote, kIgnore};
}

// memory_record.csv: a sample needs its time; the totals are optional
// (APP rows fill only Total Reserved).
constexpr ColumnSpec kMemoryRecordColumns[] = {
    {"Component", {"Component"}, true, U::kText},
    {"Timestamp",
     {"Timestamp(us)", "Timestamp"},
     true,
     U::kMicros,
     OnMissing::kSkipRow,
     kSkip,
     kSkip},
    Size("Total Allocated", "Total Allocated(MB)", U::kMebibytes),
    Size("Total Reserved", "Total Reserved(MB)", U::kMebibytes),
    Size("Total Active", "Total Active(MB)", U::kMebibytes),
    {"Stream Ptr", {"Stream Ptr"}, false, U::kText},
};
static_assert(std::size(kMemoryRecordColumns) == kMemoryRecordColumnCount);

// operator_memory.csv: name and size make the allocation; either time may
// be empty (outside the capture), a bad one is noted and left unknown.
constexpr ColumnSpec kOperatorMemoryColumns[] = {
    {"Name", {"Name"}, true, U::kText},
    {"Size", {"Size(KB)"}, true, U::kKibibytes, OnMissing::kAsUnparsable, kSkip, kIgnore},
    {"Allocation Time",
     {"Allocation Time(us)"},
     true,
     U::kMicros,
     OnMissing::kDefault,
     kNote,
     kNote},
    {"Release Time", {"Release Time(us)"}, false, U::kMicros, OnMissing::kDefault, kNote, kNote},
    Size("Allocation Total Allocated", "Allocation Total Allocated(MB)", U::kMebibytes),
    Size("Allocation Total Reserved", "Allocation Total Reserved(MB)", U::kMebibytes),
    Size("Release Total Allocated", "Release Total Allocated(MB)", U::kMebibytes),
    Size("Release Total Reserved", "Release Total Reserved(MB)", U::kMebibytes),
    {"Stream Ptr", {"Stream Ptr"}, false, U::kText},
};
static_assert(std::size(kOperatorMemoryColumns) == kOperatorMemoryColumnCount);

// npu_module_mem.csv: component and time make the sample.
constexpr ColumnSpec kModuleMemColumns[] = {
    {"Component", {"Component"}, true, U::kText},
    {"Timestamp",
     {"Timestamp(us)", "Timestamp"},
     true,
     U::kMicros,
     OnMissing::kSkipRow,
     kSkip,
     kSkip},
    Size("Total Reserved", "Total Reserved(MB)", U::kMebibytes),
    Size("Total Reserved", "Total Reserved(KB)", U::kKibibytes),
};
static_assert(std::size(kModuleMemColumns) == kModuleMemColumnCount);

}  // namespace

const CsvSpec kMemoryRecord = {
    "memory_record.csv", kMemoryRecordColumns,
    "memory_record.csv needs Component and Timestamp(us) (written by torch_npu into "
    "ASCEND_PROFILER_OUTPUT with profile_memory=True)"};

const CsvSpec kOperatorMemory = {
    "operator_memory.csv", kOperatorMemoryColumns,
    "operator_memory.csv needs Name, Size(KB) and Allocation Time(us) (written by torch_npu into "
    "ASCEND_PROFILER_OUTPUT with profile_memory=True)"};

const CsvSpec kNpuModuleMem = {
    "npu_module_mem.csv", kModuleMemColumns,
    "npu_module_mem.csv needs Component and Timestamp(us) (CANN's per-component device memory, "
    "copied by torch_npu into ASCEND_PROFILER_OUTPUT)"};

const CsvSpec kKernelDetails = {
    "kernel_details.csv", kKernelColumns,
    "kernel_details.csv needs Name, Start Time(us) (or Task Start Time(us)) and Duration(us) "
    "(or Task Duration(us)); pass the ASCEND_PROFILER_OUTPUT/kernel_details.csv written by "
    "torch_npu, with its header as the first line"};

const CsvSpec kStepTraceTime = {
    "step_trace_time.csv", kStepTraceColumns,
    "step_trace_time.csv needs at least Step, Computing and Communication columns (written by "
    "torch_npu into ASCEND_PROFILER_OUTPUT)"};

const CsvSpec kOpStatistic = {
    "op_statistic.csv", kOpStatisticColumns,
    "op_statistic.csv needs OP Type, Count and Total Time(us) (CANN op_statistic copied by "
    "torch_npu at Level1/Level2)"};

const CsvSpec kApiStatistic = {
    "api_statistic.csv", kApiStatisticColumns,
    "api_statistic.csv needs API Name, Time(us) and Count (CANN api_statistic copied by torch_npu "
    "at Level1/Level2)"};

const CsvSpec kOperatorDetails = {
    "operator_details.csv", kOperatorDetailsColumns,
    "operator_details.csv needs a Name column (written by torch_npu into ASCEND_PROFILER_OUTPUT; "
    "Call Stack only with with_stack=True)"};

const CsvSpec kL2Cache = {
    "l2_cache.csv", kL2CacheColumns,
    "l2_cache.csv needs an Op Name column (CANN l2_cache copied by torch_npu when "
    "experimental_config has l2_cache=True)"};

}  // namespace trainscope::formats::ascend_csv
