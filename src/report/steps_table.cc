#include "report/steps_table.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "report/html_writer.h"
#include "report/json_writer.h"
#include "report/text_report.h"
#include "report/units.h"

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
      // A set-aside timeline's span is not the step: the budget's is
      // (step_trace_time.csv, which set it aside).
      const bool aside = !d.timeline_set_aside.empty() && d.breakdown;
      const int64_t span = aside ? d.breakdown->budget.total_ns : d.kernels.span_ns;
      if (aside) ++row.timeline_set_aside_ranks;
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

std::string StepsTableText(const StepsTable& table) {
  if (table.rows.empty()) return "";
  std::string out = fmt::format("\n  {:<8} {:>5} {:>11} {:>11} {:>6} {:>9} {:>12} {:>12} {:>10}\n",
                                "step", "ranks", "mean span", "slowest", "(rank)", "kernels",
                                "computation", "exposed comm", "free");
  bool any_aside = false;
  for (const StepTableRow& r : table.rows) {
    any_aside = any_aside || r.timeline_set_aside_ranks > 0;
    const std::string step = fmt::format("{}{}{}", r.step, r.selected ? " *" : "",
                                         r.timeline_set_aside_ranks > 0 ? " †" : "");
    auto budget = [&](double ns) {
      return r.budget_ranks > 0 ? FormatDurationNs(ns) : std::string("n/a");
    };
    out += fmt::format("  {:<8} {:>5} {:>11} {:>11} {:>6} {:>9} {:>12} {:>12} {:>10}\n", step,
                       r.ranks, FormatDurationNs(r.mean_span_ns),
                       FormatDurationNs(static_cast<double>(r.max_span_ns)), r.slowest_rank,
                       FormatCount(std::llround(r.mean_kernels)), budget(r.mean_computation_ns),
                       budget(r.mean_exposed_communication_ns), budget(r.mean_free_ns));
  }
  out +=
      "  * the selected step; span, kernels and budget are means over the ranks that have the "
      "step; slowest: the longest rank's span\n";
  if (any_aside) {
    out +=
        "  † some ranks' device timeline of the step is set aside: their span is "
        "step_trace_time.csv's step, no number comes from that timeline\n";
  }
  if (table.stddev_span_ns && table.mean_span_ns) {
    out += fmt::format(
        "  step time across {} steps: mean {}, standard deviation {} ({} of the mean); slowest "
        "step {}, fastest step {}\n",
        table.rows.size(), FormatDurationNs(*table.mean_span_ns),
        FormatDurationNs(*table.stddev_span_ns), table.cv ? FormatPercent(*table.cv) : "n/a",
        table.slowest_step, table.fastest_step);
  }
  return out;
}

void WriteStepsTableJson(JsonWriter& w, const StepsTable& table) {
  w.Key("steps_table").BeginObject();
  w.Key("rows").BeginArray();
  for (const StepTableRow& r : table.rows) {
    w.BeginObject();
    w.Field("step", r.step);
    w.Field("selected", r.selected);
    w.Field("ranks", r.ranks);
    w.Field("timeline_set_aside_ranks", r.timeline_set_aside_ranks);
    w.Key("mean_span_us").Double(Us(r.mean_span_ns), 3);
    w.Key("min_span_us").Double(Us(r.min_span_ns), 3);
    w.Key("max_span_us").Double(Us(r.max_span_ns), 3);
    w.Field("slowest_rank", r.slowest_rank);
    w.Key("mean_kernels").Double(r.mean_kernels, 3);
    w.Key("mean_kernel_time_us").Double(Us(r.mean_kernel_time_ns), 3);
    w.Field("budget_ranks", r.budget_ranks);
    for (const auto& [key, ns] :
         {std::pair<const char*, double>{"mean_computation_us", r.mean_computation_ns},
          {"mean_exposed_communication_us", r.mean_exposed_communication_ns},
          {"mean_free_us", r.mean_free_ns}}) {
      if (r.budget_ranks > 0)
        w.Key(key).Double(Us(ns), 3);
      else
        w.Key(key).Null();
    }
    w.EndObject();
  }
  w.EndArray();
  auto optional_us = [&](const char* key, const std::optional<double>& ns) {
    if (ns)
      w.Key(key).Double(Us(*ns), 3);
    else
      w.Key(key).Null();
  };
  optional_us("mean_span_us", table.mean_span_ns);
  optional_us("stddev_span_us", table.stddev_span_ns);
  if (table.cv)
    w.Key("cv").Double(*table.cv, 6);
  else
    w.Key("cv").Null();
  if (table.rows.empty()) {
    w.Key("slowest_step").Null();
    w.Key("fastest_step").Null();
  } else {
    w.Field("slowest_step", table.slowest_step);
    w.Field("fastest_step", table.fastest_step);
  }
  w.EndObject();
}

void RenderStepsTableHtml(HtmlWriter& out, const StepsTable& table) {
  if (table.rows.empty()) return;
  out.Raw(
      "<h3>Every captured step</h3>\n<table><tr><th>step</th><th>ranks</th><th>mean "
      "span</th><th>slowest rank's span</th><th>slowest rank</th><th>kernels</th>"
      "<th>computation</th><th>exposed comm</th><th>free</th></tr>\n");
  for (const StepTableRow& r : table.rows) {
    auto budget = [&](double ns) {
      return r.budget_ranks > 0 ? FormatDurationNs(ns) : std::string("n/a");
    };
    out.Format(
        "<tr><td>{}{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td></tr>\n",
        r.step, r.selected ? " (selected)" : "",
        r.timeline_set_aside_ranks > 0
            ? fmt::format("{} ({} with the timeline set aside: step_trace_time.csv's step)",
                          r.ranks, r.timeline_set_aside_ranks)
            : fmt::format("{}", r.ranks),
        FormatDurationNs(r.mean_span_ns), FormatDurationNs(static_cast<double>(r.max_span_ns)),
        r.slowest_rank, FormatCount(std::llround(r.mean_kernels)), budget(r.mean_computation_ns),
        budget(r.mean_exposed_communication_ns), budget(r.mean_free_ns));
  }
  out.Raw("</table>\n");
  if (table.stddev_span_ns && table.mean_span_ns) {
    out.Format(
        "<p>Step time across {} steps: mean {}, standard deviation {} ({} of the mean); slowest "
        "step {}, fastest step {}.</p>\n",
        table.rows.size(), FormatDurationNs(*table.mean_span_ns),
        FormatDurationNs(*table.stddev_span_ns), table.cv ? FormatPercent(*table.cv) : "n/a",
        table.slowest_step, table.fastest_step);
  }
}

}  // namespace trainscope::report
