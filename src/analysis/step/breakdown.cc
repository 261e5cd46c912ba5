#include "analysis/step/breakdown.h"

#include <algorithm>
#include <vector>

#include "analysis/common/coverage_sweep.h"

namespace trainscope::analysis {
namespace {

// The sweep's lane of each kind.
constexpr CoverageSweep::Lanes kCompute = CoverageSweep::Lane(0);
constexpr CoverageSweep::Lanes kComm = CoverageSweep::Lane(1);
constexpr CoverageSweep::Lanes kMemcpy = CoverageSweep::Lane(2);
constexpr CoverageSweep::Lanes kMemset = CoverageSweep::Lane(3);

CoverageSweep::Lanes LaneOf(model::ActivityKind kind) {
  switch (kind) {
    case model::ActivityKind::kCompute:
      return kCompute;
    case model::ActivityKind::kCommunication:
      return kComm;
    case model::ActivityKind::kMemcpy:
      return kMemcpy;
    case model::ActivityKind::kMemset:
      return kMemset;
  }
  return kCompute;
}

}  // namespace

namespace {

// The budget of |rows|, each clipped to [clip_start, clip_end) (an empty
// clip range: not clipped). The window is the rows' extent, or the clip
// range itself when given.
TimeBudget BudgetOfClippedRows(std::span<const int64_t> start_ns,
                               std::span<const int64_t> duration_ns,
                               std::span<const model::ActivityKind> kinds, model::RowSet rows,
                               int64_t clip_start, int64_t clip_end) {
  TimeBudget b;
  const bool clipped = clip_end > clip_start;
  if (rows.empty()) return b;
  std::vector<uint32_t> sorted;
  CoverageSweep sweep;
  bool first = true;
  for (uint32_t i : RowsByStart(start_ns, rows, &sorted)) {
    int64_t start = start_ns[i];
    int64_t end = start + duration_ns[i];
    if (clipped) {
      start = std::max(start, clip_start);
      end = std::min(end, clip_end);
      // An instant (zero-length) activity belongs where it starts.
      const bool inside =
          duration_ns[i] == 0 ? start_ns[i] >= clip_start && start_ns[i] < clip_end : end > start;
      if (!inside) continue;
    }
    ++b.activities;
    if (first || start < b.window_start_ns) b.window_start_ns = start;
    if (first || end > b.window_end_ns) b.window_end_ns = end;
    first = false;
    sweep.Add(LaneOf(kinds[i]), start, end);
  }
  if (clipped) {
    b.window_start_ns = clip_start;
    b.window_end_ns = clip_end;
  }
  constexpr CoverageSweep::Lanes kAll = kCompute | kComm | kMemcpy | kMemset;
  b.total_ns = b.window_end_ns - b.window_start_ns;
  b.busy_ns = sweep.Covered(kAll);
  b.computation_ns = sweep.Covered(kCompute);
  b.communication_ns = sweep.Covered(kComm);
  b.exposed_communication_ns = sweep.Covered(kComm, kCompute);
  b.memcpy_ns = sweep.Covered(kMemcpy);
  b.exposed_memcpy_ns = sweep.Covered(kMemcpy, kCompute | kComm);
  b.memset_ns = sweep.Covered(kMemset);
  b.exposed_memset_ns = sweep.Covered(kMemset, kCompute | kComm | kMemcpy);
  b.idle_ns = b.total_ns - b.busy_ns;
  return b;
}

}  // namespace

TimeBudget BudgetOfRows(std::span<const int64_t> start_ns, std::span<const int64_t> duration_ns,
                        std::span<const model::ActivityKind> kinds, model::RowSet rows) {
  return BudgetOfClippedRows(start_ns, duration_ns, kinds, rows, 0, 0);
}

TimeBudget BudgetInWindow(std::span<const int64_t> start_ns, std::span<const int64_t> duration_ns,
                          std::span<const model::ActivityKind> kinds, model::RowSet rows,
                          int64_t window_start, int64_t window_end) {
  if (window_end <= window_start) return TimeBudget{};
  return BudgetOfClippedRows(start_ns, duration_ns, kinds, rows, window_start, window_end);
}

}  // namespace trainscope::analysis
