#include "report/steps_table.h"

#include <cmath>
#include <map>

namespace trainscope::report {

StepsTable BuildStepsTable(const analysis::JobAnalysis& job) {
  struct Sums {
    StepTableRow row;
    double span = 0, kernels = 0, kernel_time = 0, computation = 0, exposed = 0, free = 0;
  };
  std::map<int32_t, Sums> by_step;
  for (const analysis::RankAnalysis& rank : job.ranks) {
    for (const analysis::StepDistribution& d : rank.steps) {
      if (d.step == model::kNoStep ||
          d.kernels.count + d.kernels.memcpy_count + d.kernels.memset_count == 0)
        continue;
      Sums& s = by_step[d.step];
      StepTableRow& row = s.row;
      row.step = d.step;
      row.selected = row.selected || d.step == rank.selected_step;
      const int64_t span = d.kernels.span_ns;
      if (row.ranks == 0 || span < row.min_span_ns) row.min_span_ns = span;
      if (row.ranks == 0 || span > row.max_span_ns) {
        row.max_span_ns = span;
        row.slowest_rank = rank.header.rank;
      }
      ++row.ranks;
      s.span += static_cast<double>(span);
      s.kernels += static_cast<double>(d.kernels.count);
      s.kernel_time += static_cast<double>(d.kernels.total_time_ns);
      if (d.breakdown) {
        const analysis::TimeBudget& b = d.breakdown->budget;
        ++row.budget_ranks;
        s.computation += static_cast<double>(b.computation_ns);
        s.exposed += static_cast<double>(b.exposed_communication_ns);
        s.free += static_cast<double>(b.idle_ns);
      }
    }
  }
  StepsTable table;
  for (auto& [step, s] : by_step) {
    StepTableRow row = s.row;
    const double n = row.ranks;
    row.mean_span_ns = s.span / n;
    row.mean_kernels = s.kernels / n;
    row.mean_kernel_time_ns = s.kernel_time / n;
    if (row.budget_ranks > 0) {
      const double b = row.budget_ranks;
      row.mean_computation_ns = s.computation / b;
      row.mean_exposed_communication_ns = s.exposed / b;
      row.mean_free_ns = s.free / b;
    }
    table.rows.push_back(row);
  }
  if (table.rows.empty()) return table;
  const StepTableRow* slowest = &table.rows.front();
  const StepTableRow* fastest = &table.rows.front();
  double sum = 0;
  for (const StepTableRow& row : table.rows) {
    sum += row.mean_span_ns;
    if (row.mean_span_ns > slowest->mean_span_ns) slowest = &row;
    if (row.mean_span_ns < fastest->mean_span_ns) fastest = &row;
  }
  table.slowest_step = slowest->step;
  table.fastest_step = fastest->step;
  if (table.rows.size() >= 2) {
    const double n = static_cast<double>(table.rows.size());
    const double mean = sum / n;
    double squares = 0;
    for (const StepTableRow& row : table.rows)
      squares += (row.mean_span_ns - mean) * (row.mean_span_ns - mean);
    table.mean_span_ns = mean;
    table.stddev_span_ns = std::sqrt(squares / (n - 1));
    if (mean > 0) table.cv = *table.stddev_span_ns / mean;
  }
  return table;
}

}  // namespace trainscope::report
