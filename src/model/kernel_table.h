// KernelTable: device kernels of one rank, stored as columns.
//
// One row per device task as the profiler reports it (a compute kernel or a
// whole communication op). Strings are StringIds into the owning
// RankProfile's StringPool. Columns, not structs of strings, because a rank
// has 10^4-10^6 kernels per step and analyses scan one or two columns.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "core/string_pool.h"

namespace trainscope::model {

enum class KernelKind : uint8_t {
  kCompute = 0,
  kCommunication = 1,  // HCCL/COMMUNICATION accelerator core, hcom_* ops, NCCL
  kMemory = 2,         // memcpy / memset (GPU traces)
};

inline constexpr int32_t kNoStep = -1;    // kernel outside any ProfilerStep
inline constexpr int32_t kNoStream = -1;  // stream id N/A

struct KernelRow {
  int32_t step = kNoStep;
  StringId name = StringPool::kEmpty;
  StringId op_type = StringPool::kEmpty;      // "Type" column, or derived from the name
  StringId accelerator = StringPool::kEmpty;  // "Accelerator Core" (AI_CORE, HCCL, ...)
  int32_t stream = kNoStream;
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
  int64_t wait_ns = 0;
  int32_t block_dim = 0;
  KernelKind kind = KernelKind::kCompute;
  bool op_type_derived = false;  // true when Type was N/A and we derived it from Name
  float aic_mac_ratio = NAN;     // PipeUtilization metrics; NaN when absent
  float aic_mte2_ratio = NAN;
  float aiv_vec_ratio = NAN;
};

class KernelTable {
 public:
  void Reserve(size_t rows);
  void Append(const KernelRow& row);
  size_t size() const { return start_ns.size(); }
  KernelRow Row(size_t index) const;
  int64_t end_ns(size_t index) const { return start_ns[index] + duration_ns[index]; }

  // Sorts all columns by (start_ns, original order). Readers call it once at
  // the end because kernel_details.csv is not guaranteed to be time-ordered.
  void SortByStart();

  // Rows whose step is |step|, in row order; kNoStep means every row (the
  // whole-profile scope of the analyses). Kept up to date by Append and
  // SortByStart, so per-step analyses of a profile with S steps read N rows
  // in all instead of scanning N rows S times. The step column must not be
  // written directly.
  std::span<const uint32_t> RowsOf(int32_t step) const;

  std::vector<int32_t> step;
  std::vector<StringId> name;
  std::vector<StringId> op_type;
  std::vector<StringId> accelerator;
  std::vector<int32_t> stream;
  std::vector<int64_t> start_ns;
  std::vector<int64_t> duration_ns;
  std::vector<int64_t> wait_ns;
  std::vector<int32_t> block_dim;
  std::vector<KernelKind> kind;
  std::vector<uint8_t> op_type_derived;
  std::vector<float> aic_mac_ratio;
  std::vector<float> aic_mte2_ratio;
  std::vector<float> aiv_vec_ratio;

 private:
  void IndexSteps();

  std::map<int32_t, std::vector<uint32_t>> rows_by_step_;
  std::vector<uint32_t> all_rows_;
};

}  // namespace trainscope::model
