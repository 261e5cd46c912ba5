// DeviceEvents: the device work of one rank, one table whatever the source.
//
// One row per device task as the profiler reports it: a compute kernel, a
// whole communication op, a memcpy or a memset. kernel_details.csv, the
// Ascend .db export, trace_view.json and Kineto traces all fill this table
// (when a rank has both kernel_details.csv and trace_view.json, the trace's
// tasks are joined onto the CSV rows instead of being kept as a second view:
// formats/trace/timeline_builder.h). Strings are StringIds into the owning
// RankProfile's StringPool; times are int64 ns.
//
// Columns, not structs of strings, because a rank has 10^4-10^6 tasks per
// step and analyses scan one or two columns. The column list below is the
// only place a column is declared (columnar.h generates the row struct,
// Reserve, Append, Row and Permute from it). Ascend PMU metrics, present only
// for some captures, live in a side table with one row per event or none.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "core/string_pool.h"
#include "model/activity_kind.h"
#include "model/columnar.h"
#include "model/row_set.h"
#include "model/tensor_descriptions.h"

namespace trainscope::model {

inline constexpr int32_t kNoStep = -1;    // event outside any step
inline constexpr int32_t kNoStream = -1;  // stream id N/A
inline constexpr int32_t kNoIndex = -1;
inline constexpr int64_t kNoId = INT64_MIN;  // correlation / external id absent

// kernel_details.csv's "OP State" (CANN >= 8.0): whether the kernel was
// built for dynamic shapes. Unknown where the column is absent or N/A
// (communication rows, older CANN, traces).
enum class OpState : uint8_t { kUnknown = 0, kStatic = 1, kDynamic = 2 };

// (type, name, default of a row). Sparse<T> columns store nothing until a
// row holds another value (columnar.h): kernel_details.csv has no
// correlation, external id, collective or launcher (24 of a row's 79
// bytes), a .db export without host tables no external id, collective or
// launcher (docs/benchmarks.md, "Peak memory below half the CSV"), a trace
// no wait or block dim (12 bytes). A reader that writes rows from several
// threads at once writes a sparse column absent or stores it first
// (SparseColumn::StoreEveryRow).
// clang-format off
#define TS_DEVICE_EVENT_COLUMNS(X)                                                              \
  X(int32_t, step, kNoStep)                                                                     \
  X(StringId, name, StringPool::kEmpty)                                                         \
  X(StringId, op_type, StringPool::kEmpty)      /* "Type" column, or derived from the name */   \
  X(StringId, accelerator, StringPool::kEmpty)  /* "Accelerator Core" / Task Type / Kineto cat */ \
  X(int32_t, device, -1)                                                                        \
  X(int32_t, stream, kNoStream)                                                                 \
  X(int64_t, start_ns, 0)                                                                       \
  X(int64_t, duration_ns, 0)                                                                    \
  X(columnar::Sparse<int64_t>, wait_ns, 0)   /* kernel_details.csv / .db only */                  \
  X(columnar::Sparse<int32_t>, block_dim, 0) /* kernel_details.csv / .db only */                  \
  X(ActivityKind, kind, ActivityKind::kCompute)                                                 \
  X(uint8_t, op_type_derived, 0)  /* 1 when Type was N/A and we derived it from Name */         \
  X(columnar::Sparse<int64_t>, correlation, kNoId)                                              \
  X(columnar::Sparse<int64_t>, external_id, kNoId)                                              \
  X(columnar::Sparse<int32_t>, collective, kNoIndex)  /* index into Timeline::collectives */    \
  X(columnar::Sparse<int32_t>, launcher, kNoIndex)    /* index into Timeline::host_ops */         \
  X(TensorDescriptionId, tensors, kNoTensors)  /* shapes and dtypes: DeviceEvents::tensors_of */ \
  X(OpState, op_state, OpState::kUnknown)      /* kernel_details.csv "OP State" (CANN >= 8.0) */
// clang-format on

TS_COLUMNAR_TABLE(DeviceEvent, DeviceEventColumns, TS_DEVICE_EVENT_COLUMNS, start_ns)

// Ascend PipeUtilization metrics (kernel_details.csv with aic_metrics); NaN
// where a row has none.
// clang-format off
#define TS_PMU_COLUMNS(X)            \
  X(float, aic_mac_ratio, NAN)       \
  X(float, aic_mte2_ratio, NAN)      \
  X(float, aiv_vec_ratio, NAN)
// clang-format on

TS_COLUMNAR_TABLE(PmuMetrics, PmuColumns, TS_PMU_COLUMNS, aic_mac_ratio)

// Where a step's events lie: the first start, the last end, how many. The
// step's span as the analyses use it (step choice, motif time origin,
// straggler offsets), stored once here.
struct StepExtent {
  int64_t first_start_ns = 0;
  int64_t last_end_ns = 0;
  int64_t events = 0;
  int64_t span_ns() const { return last_end_ns - first_start_ns; }
};

class DeviceEvents : public DeviceEventColumns {
 public:
  DeviceEvents() = default;
  // Takes columns filled elsewhere (a trace reader's staging table) and
  // indexes their steps. Their tensors column must hold kNoTensors only: no
  // descriptions come with them.
  explicit DeviceEvents(DeviceEventColumns columns);
  // The same with PMU metrics (|pmu| is empty or has one row per event) and
  // the descriptions the tensors column points into.
  DeviceEvents(DeviceEventColumns columns, PmuColumns pmu, TensorDescriptions descriptions);

  void Append(const DeviceEvent& row);
  // A row with PMU metrics. The side table is filled up to this row with
  // NaN, so it has one row per event as soon as any event has metrics.
  void Append(const DeviceEvent& row, const PmuMetrics& metrics);
  // Appends every row of |rows| (and its PMU rows, one per row, when |pmu|
  // is given) at once: a reader that built parts of the table on several
  // threads hands them over in file order. Cheaper than Append per row: the
  // columns grow by a range and the step index caches the current step.
  void AppendColumns(const DeviceEventColumns& rows, const PmuColumns* pmu);
  // Drops the rows from |rows| on (a reader that reads a table again after
  // a way of reading it proved wrong) and re-indexes.
  void Truncate(size_t rows);
  int64_t end_ns(size_t index) const { return start_ns[index] + duration_ns[index]; }

  // The shapes and dtypes of row |index| (all empty where the profile has
  // none: traces, communication).
  const TensorDescription& tensors_of(size_t index) const {
    return tensor_descriptions_[tensors[index]];
  }
  // The id a row's tensors column takes for |description|.
  TensorDescriptionId InternTensors(const TensorDescription& description) {
    return tensor_descriptions_.Intern(description);
  }
  const TensorDescriptions& tensor_descriptions() const { return tensor_descriptions_; }
  // Moves the descriptions out (a reader that rebuilds the table from
  // columns hands them to the new one).
  TensorDescriptions TakeTensorDescriptions() {
    return std::exchange(tensor_descriptions_, TensorDescriptions());
  }

  // Empty, or one row per event (NaN where an event has none).
  const PmuColumns& pmu() const { return pmu_; }
  bool has_pmu() const { return pmu_.size() > 0; }

  // Sorts all columns by (start_ns, original order). Readers call it once at
  // the end: kernel_details.csv is not guaranteed to be time-ordered.
  void SortByStart();

  // Sets the step of every row at once (the trace readers assign steps after
  // sorting) and re-indexes.
  void AssignSteps(std::vector<int32_t> steps);

  // Rows whose step is |step|, in row order; kNoStep means every row (the
  // whole-profile scope of the analyses). Kept up to date by Append,
  // SortByStart and AssignSteps, so per-step analyses of a profile with S
  // steps read N rows in all instead of scanning N rows S times. The step
  // column must not be written directly. Valid until the table changes.
  RowSet RowsOf(int32_t step) const;

  // The step numbers that have rows, ascending (kNoStep left out).
  std::vector<int32_t> Steps() const;

  // The extent of |step|'s rows (kNoStep: of every row); nullopt when it has
  // none. Kept up to date with the step index.
  std::optional<StepExtent> ExtentOf(int32_t step) const;

 private:
  // Permute without re-indexing would leave RowsOf stale: SortByStart only.
  using DeviceEventColumns::Permute;
  void AppendEvent(const DeviceEvent& row);
  void IndexSteps();
  // Adds rows [first, end) to the step index and the extents.
  void IndexRows(size_t first, size_t end);
  void Extend(int32_t step, int64_t start, int64_t end);
  // Extends |step|'s extent (and the extent of all rows) by a run of its
  // rows at once.
  void ExtendBy(int32_t step, const StepExtent& more);

  // A step's rows: a range of the table until a row breaks the run, then a
  // list of every one of them (row_set.h).
  struct StepRows {
    size_t first = 0;
    size_t count = 0;
    std::vector<uint32_t> list;  // empty while the rows are one run
    void AddRun(size_t begin, size_t end);
    RowSet View() const { return list.empty() ? RowSet::Range(first, count) : RowSet(list); }
  };

  PmuColumns pmu_;
  TensorDescriptions tensor_descriptions_;
  std::map<int32_t, StepRows> rows_by_step_;
  std::map<int32_t, StepExtent> extent_by_step_;  // kNoStep: rows without a step
  std::optional<StepExtent> extent_of_all_;
};

}  // namespace trainscope::model
