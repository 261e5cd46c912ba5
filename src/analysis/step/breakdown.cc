#include "analysis/step/breakdown.h"

#include <algorithm>

#include "analysis/common/breakdown_intervals.h"

namespace trainscope::analysis {
namespace {

// The budget from the unions of the four kinds' intervals; |activities|
// and the window are the caller's.
void FillBudgetOfUnions(const std::vector<Interval>& u_compute, const std::vector<Interval>& u_comm,
                        const std::vector<Interval>& u_memcpy,
                        const std::vector<Interval>& u_memset, TimeBudget* b) {
  std::vector<Interval> u_cc = UnionOfMerged(u_compute, u_comm);
  std::vector<Interval> u_all = UnionOfMerged(UnionOfMerged(u_cc, u_memcpy), u_memset);
  b->total_ns = b->window_end_ns - b->window_start_ns;
  b->busy_ns = TotalLength(u_all);
  b->computation_ns = TotalLength(u_compute);
  b->communication_ns = TotalLength(u_comm);
  b->exposed_communication_ns = LengthMinus(u_comm, u_compute);
  b->memcpy_ns = TotalLength(u_memcpy);
  b->exposed_memcpy_ns = LengthMinus(u_memcpy, u_cc);
  b->memset_ns = TotalLength(u_memset);
  b->exposed_memset_ns = LengthMinus(u_memset, UnionOfMerged(u_cc, u_memcpy));
  b->idle_ns = b->total_ns - b->busy_ns;
}

}  // namespace

TimeBudget BudgetOfRows(std::span<const int64_t> start_ns, std::span<const int64_t> duration_ns,
                        std::span<const model::ActivityKind> kinds,
                        std::span<const uint32_t> rows) {
  using model::ActivityKind;
  UnionBuilder compute, comm, memcpy, memset;
  TimeBudget b;
  bool first = true;
  for (uint32_t i : rows) {
    ActivityKind kind = kinds[i];
    Interval iv{start_ns[i], start_ns[i] + duration_ns[i]};
    ++b.activities;
    if (first || iv.start < b.window_start_ns) b.window_start_ns = iv.start;
    if (first || iv.end > b.window_end_ns) b.window_end_ns = iv.end;
    first = false;
    switch (kind) {
      case ActivityKind::kCompute:
        compute.Add(iv);
        break;
      case ActivityKind::kCommunication:
        comm.Add(iv);
        break;
      case ActivityKind::kMemcpy:
        memcpy.Add(iv);
        break;
      case ActivityKind::kMemset:
        memset.Add(iv);
        break;
    }
  }
  if (b.activities == 0) return b;
  FillBudgetOfUnions(std::move(compute).Take(), std::move(comm).Take(), std::move(memcpy).Take(),
                     std::move(memset).Take(), &b);
  return b;
}

}  // namespace trainscope::analysis
