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

TimeBudget BudgetOfRows(std::span<const int64_t> start_ns, std::span<const int64_t> duration_ns,
                        std::span<const model::ActivityKind> kinds,
                        std::span<const uint32_t> rows) {
  TimeBudget b;
  if (rows.empty()) return b;
  std::vector<uint32_t> sorted;
  CoverageSweep sweep;
  bool first = true;
  for (uint32_t i : RowsByStart(start_ns, rows, &sorted)) {
    const int64_t start = start_ns[i];
    const int64_t end = start + duration_ns[i];
    ++b.activities;
    if (first || start < b.window_start_ns) b.window_start_ns = start;
    if (first || end > b.window_end_ns) b.window_end_ns = end;
    first = false;
    sweep.Add(LaneOf(kinds[i]), start, end);
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

}  // namespace trainscope::analysis
