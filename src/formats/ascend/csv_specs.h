// The column specs of the Ascend CSV files (ASCEND_PROFILER_OUTPUT), one
// table per file: header aliases across torch_npu / CANN versions
// (docs/ascend-formats.md), required columns, units and what a bad cell
// costs. The readers bind these to the header (formats/csv/csv_spec.h) and
// address columns by the enums below, which follow each table's order.
#pragma once

#include <cstddef>

#include "formats/csv/csv_spec.h"

namespace trainscope::formats::ascend_csv {

// kernel_details.csv (docs/ascend-formats.md 2.2).
enum KernelColumn : size_t {
  kKernelStep,
  kKernelName,
  kKernelType,
  kKernelAccelerator,
  kKernelStream,
  kKernelStart,
  kKernelDuration,
  kKernelWait,
  kKernelBlockDim,
  kKernelAicMacRatio,
  kKernelAicMte2Ratio,
  kKernelAivVecRatio,
  kKernelInputShapes,
  kKernelInputTypes,
  kKernelOutputShapes,
  kKernelOutputTypes,
  kKernelOpState,
  kKernelColumnCount,
};
extern const CsvSpec kKernelDetails;

// step_trace_time.csv.
enum StepTraceColumn : size_t {
  kStepDevice,
  kStepStep,
  kStepComputing,
  kStepCommNotOverlapped,
  kStepOverlapped,
  kStepCommunication,
  kStepFree,
  kStepStage,
  kStepBubble,
  kStepPreparing,
  kStepTraceColumnCount,
};
extern const CsvSpec kStepTraceTime;

// op_statistic.csv (Level1+).
enum OpStatisticColumn : size_t {
  kOpType,
  kOpCoreType,
  kOpCount,
  kOpTotal,
  kOpMin,
  kOpAvg,
  kOpMax,
  kOpRatio,
  kOpStatisticColumnCount,
};
extern const CsvSpec kOpStatistic;

// api_statistic.csv (CANN host API statistics, Level1+; docs/ascend-formats.md 2.5).
enum ApiStatisticColumn : size_t {
  kApiLevel,
  kApiName,
  kApiTime,
  kApiCount,
  kApiAvg,
  kApiMin,
  kApiMax,
  kApiStatisticColumnCount,
};
extern const CsvSpec kApiStatistic;

// operator_details.csv (torch_npu, one row per framework op call; 2.6).
enum OperatorDetailsColumn : size_t {
  kOperatorName,
  kOperatorInputShapes,
  kOperatorCallStack,
  kOperatorHostTotal,
  kOperatorDeviceTotal,
  kOperatorDetailsColumnCount,
};
extern const CsvSpec kOperatorDetails;

// memory_record.csv (allocator totals over time; 2.8). Active and Stream
// Ptr only in the 2024+ header.
enum MemoryRecordColumn : size_t {
  kRecordComponent,
  kRecordTimestamp,
  kRecordAllocated,
  kRecordReserved,
  kRecordActive,
  kRecordStream,
  kMemoryRecordColumnCount,
};
extern const CsvSpec kMemoryRecord;

// operator_memory.csv (one row per tensor allocation; 2.7).
enum OperatorMemoryColumn : size_t {
  kOpMemName,
  kOpMemSize,
  kOpMemAllocTime,
  kOpMemReleaseTime,
  kOpMemAllocAllocated,
  kOpMemAllocReserved,
  kOpMemReleaseAllocated,
  kOpMemReleaseReserved,
  kOpMemStream,
  kOperatorMemoryColumnCount,
};
extern const CsvSpec kOperatorMemory;

// npu_module_mem.csv (driver components, sampled; 2.9). torch_npu writes
// MB; CANN's own file has KB: either column is read.
enum ModuleMemColumn : size_t {
  kModuleComponent,
  kModuleTimestamp,
  kModuleReservedMb,
  kModuleReservedKb,
  kModuleMemColumnCount,
};
extern const CsvSpec kNpuModuleMem;

// l2_cache.csv (experimental_config l2_cache=True; 2.10). Some versions
// prepend Device_id: not bound.
enum L2CacheColumn : size_t {
  kL2Stream,
  kL2Task,
  kL2HitRate,
  kL2VictimRate,
  kL2OpName,
  kL2CacheColumnCount,
};
extern const CsvSpec kL2Cache;

// Every spec above, for docs and tests.
inline constexpr const CsvSpec* kAllSpecs[] = {&kKernelDetails,  &kStepTraceTime,   &kOpStatistic,
                                               &kApiStatistic,   &kOperatorDetails, &kMemoryRecord,
                                               &kOperatorMemory, &kNpuModuleMem,    &kL2Cache};

}  // namespace trainscope::formats::ascend_csv
