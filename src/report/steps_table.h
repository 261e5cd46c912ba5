// The table of every captured step of the job (not only the selected one):
// per step, across the ranks that have it, the span, kernels and time
// budget, and how much the step time varies from step to step. Shown by the
// text summary (--steps), the JSON ("steps_table") and the HTML report.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/job/rank_analysis.h"

namespace trainscope::report {

struct StepTableRow {
  int32_t step = model::kNoStep;
  bool selected = false;  // the job's selected step
  int32_t ranks = 0;      // ranks with device events in the step
  // Of those, ranks whose device timeline of the step is set aside
  // (StepDistribution::timeline_set_aside): their "span" below is the
  // budget's step from step_trace_time.csv, never the timeline's span.
  int32_t timeline_set_aside_ranks = 0;
  int64_t min_span_ns = 0;
  int64_t max_span_ns = 0;  // the slowest rank's span
  int32_t slowest_rank = -1;
  double mean_span_ns = 0;
  double mean_kernels = 0;
  double mean_kernel_time_ns = 0;
  // Means of the interval-union budget over the ranks that have one
  // (budget_ranks); unknown when none has.
  int32_t budget_ranks = 0;
  double mean_computation_ns = 0;
  double mean_exposed_communication_ns = 0;
  double mean_free_ns = 0;
};

struct StepsTable {
  std::vector<StepTableRow> rows;  // ascending step; steps without a number left out
  // Over the rows' mean spans: unknown with fewer than two steps.
  std::optional<double> mean_span_ns;
  std::optional<double> stddev_span_ns;  // sample standard deviation
  std::optional<double> cv;              // stddev / mean
  int32_t slowest_step = model::kNoStep;
  int32_t fastest_step = model::kNoStep;
};

StepsTable BuildStepsTable(const analysis::JobAnalysis& job);

class JsonWriter;
class HtmlWriter;

// The table as the text summary shows it (--steps), "" without numbered steps.
std::string StepsTableText(const StepsTable& table);
// "steps_table": {...} (docs/json-schema.md).
void WriteStepsTableJson(JsonWriter& w, const StepsTable& table);
// The HTML table (inside the ranks section); nothing without numbered steps.
void RenderStepsTableHtml(HtmlWriter& out, const StepsTable& table);

}  // namespace trainscope::report
