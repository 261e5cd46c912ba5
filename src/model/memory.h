// Device memory as the profilers record it: the allocator's
// totals over time (memory_record.csv), each tensor allocation with its
// lifetime (operator_memory.csv) and the driver's per-component reservations
// (npu_module_mem.csv). Sizes are int64 bytes (the files' MB/KB are binary
// units: exact conversion, core/numbers.h ParseBinaryScaledBytes), times
// int64 ns. A cell the file left empty is nullopt, never 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/string_pool.h"

namespace trainscope::model {

// memory_record.csv's Component: PTA (the PyTorch caching allocator), GE
// (graph-engine memory), PTA+GE (their sum), APP (the process as the driver
// sees it: only Total Reserved filled), WORKSPACE (TASK_QUEUE_ENABLE=2).
enum class MemoryComponent : uint8_t { kPta, kGe, kPtaGe, kApp, kWorkspace, kOther };

MemoryComponent MemoryComponentFromName(std::string_view name);
std::string_view MemoryComponentName(MemoryComponent component);

// One allocator sample (memory_record.csv): the totals right after an
// allocation or free event.
struct MemoryRecordRow {
  int64_t ts_ns = 0;
  MemoryComponent component = MemoryComponent::kOther;
  std::optional<int64_t> allocated_bytes;
  std::optional<int64_t> reserved_bytes;
  std::optional<int64_t> active_bytes;   // 2024+ header only
  StringId stream = StringPool::kEmpty;  // Stream Ptr (2024+), empty when absent
};

// One tensor allocation (operator_memory.csv). Release columns are empty
// when the tensor outlived the capture; a negative size is a release whose
// allocation the capture did not see.
struct OperatorMemoryRow {
  StringId name = StringPool::kEmpty;  // "aten::empty_strided" (PTA), "cann::..." (GE)
  int64_t size_bytes = 0;
  std::optional<int64_t> alloc_ns;
  std::optional<int64_t> release_ns;
  std::optional<int64_t> alloc_total_allocated_bytes;
  std::optional<int64_t> alloc_total_reserved_bytes;
  std::optional<int64_t> release_total_allocated_bytes;
  std::optional<int64_t> release_total_reserved_bytes;
  StringId stream = StringPool::kEmpty;
};

// One sample of one driver component (npu_module_mem.csv: APP, HCCL,
// RUNTIME, SLOG, ...). -1 in the file ("only releases captured") is nullopt.
struct ModuleMemoryRow {
  StringId component = StringPool::kEmpty;
  int64_t ts_ns = 0;
  std::optional<int64_t> reserved_bytes;
};

struct MemoryData {
  std::vector<MemoryRecordRow> records;      // sorted by (ts, file order)
  std::vector<OperatorMemoryRow> operators;  // file order
  std::vector<ModuleMemoryRow> modules;      // sorted by (ts, file order)
  bool has_records = false;  // memory_record.csv was read (its rows may all be skipped)
  // Where |records| came from, for the report ("memory_record.csv", or the
  // .db export's "MEMORY_RECORD table").
  std::string records_from = "memory_record.csv";
  bool has_operators = false;  // operator_memory.csv
  bool has_modules = false;    // npu_module_mem.csv
  bool empty() const { return records.empty() && operators.empty() && modules.empty(); }
};

}  // namespace trainscope::model
