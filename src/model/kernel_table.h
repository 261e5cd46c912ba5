// KernelTable: device kernels of one rank, stored as columns.
//
// One row per device task as the profiler reports it (a compute kernel or a
// whole communication op). Strings are StringIds into the owning
// RankProfile's StringPool. Columns, not structs of strings, because a rank
// has 10^4-10^6 kernels per step and analyses scan one or two columns. The
// column list below is the only place a column is declared (columnar.h
// generates the row struct, Reserve, Append, Row and Permute from it).
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "core/string_pool.h"
#include "model/activity_kind.h"
#include "model/columnar.h"

namespace trainscope::model {

inline constexpr int32_t kNoStep = -1;    // kernel outside any ProfilerStep
inline constexpr int32_t kNoStream = -1;  // stream id N/A

// (type, name, default of a row)
// clang-format off
#define TS_KERNEL_COLUMNS(X)                                                                    \
  X(int32_t, step, kNoStep)                                                                     \
  X(StringId, name, StringPool::kEmpty)                                                         \
  X(StringId, op_type, StringPool::kEmpty)      /* "Type" column, or derived from the name */   \
  X(StringId, accelerator, StringPool::kEmpty)  /* "Accelerator Core" (AI_CORE, HCCL, ...) */   \
  X(int32_t, stream, kNoStream)                                                                 \
  X(int64_t, start_ns, 0)                                                                       \
  X(int64_t, duration_ns, 0)                                                                    \
  X(int64_t, wait_ns, 0)                                                                        \
  X(int32_t, block_dim, 0)                                                                      \
  X(ActivityKind, kind, ActivityKind::kCompute) /* never kOther */                                                     \
  X(uint8_t, op_type_derived, 0)  /* 1 when Type was N/A and we derived it from Name */         \
  X(float, aic_mac_ratio, NAN)    /* PipeUtilization metrics; NaN when absent */                \
  X(float, aic_mte2_ratio, NAN)                                                                 \
  X(float, aiv_vec_ratio, NAN)
// clang-format on

TS_COLUMNAR_TABLE(KernelRow, KernelColumns, TS_KERNEL_COLUMNS, start_ns)

class KernelTable : public KernelColumns {
 public:
  void Reserve(size_t rows);
  void Append(const KernelRow& row);
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

 private:
  // Permute without re-indexing would leave RowsOf stale: SortByStart only.
  using KernelColumns::Permute;
  void IndexSteps();

  std::map<int32_t, std::vector<uint32_t>> rows_by_step_;
  std::vector<uint32_t> all_rows_;
};

}  // namespace trainscope::model
