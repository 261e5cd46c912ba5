#include "analysis/step/kernel_distribution.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <span>
#include <vector>

#include "analysis/common/visited_quantiles.h"
#include "analysis/step/profiler_agreement.h"
#include "core/numbers.h"

namespace trainscope::analysis {
namespace {

std::optional<StepTraceSummary> FindStepTrace(const model::RankProfile& profile, int32_t step) {
  const model::StepTraceRow* row = profile.StepTraceOf(step);
  if (row == nullptr) return std::nullopt;
  return static_cast<const StepTraceSummary&>(*row);
}

// The step's budget and, when its device timeline is set aside, why. Two
// sources of the same step (kernel_details.csv and the trace): the one that
// agrees with the profiler's own accounting is used. When none agrees, the
// device events lost or mistyped rows in a way this tool cannot repair, so
// the budget is the profiler's own (step_trace_time.csv) and the timeline
// is set aside.
struct ChosenBudget {
  std::optional<StepBudget> budget;
  std::string set_aside;
};

ChosenBudget BudgetThatAgrees(const model::RankProfile& profile, int32_t step,
                              const std::optional<StepTraceSummary>& profiler) {
  std::optional<StepBudget> budget = ComputeStepBudget(profile, step);
  if (!budget || !profiler) return {budget, ""};
  const auto primary = CompareWithProfiler(budget->budget, *profiler);
  if (!primary || primary->agrees) return {budget, ""};
  std::optional<StepBudget> beside = TraceBudgetBeside(profile, step);
  if (beside) {
    const auto other = CompareWithProfiler(beside->budget, *profiler);
    if (other && other->agrees) {
      beside->replaced = budget->source;
      return {beside, ""};
    }
  }
  auto ms = [](int64_t ns) { return static_cast<double>(ns) / 1e6; };
  std::string why = fmt::format(
      "the time budget from {} disagrees with step_trace_time.csv by {:.1f}% of the profiler's "
      "{:.3f} ms step (computation {:+.3f} ms, exposed communication {:+.3f} ms, idle {:+.3f} "
      "ms){}",
      std::filesystem::path(profile.device_events_from).filename().string(),
      primary->worst_share * 100, ms(primary->profiler_step_ns), ms(primary->computation_delta_ns),
      ms(primary->exposed_communication_delta_ns), ms(primary->idle_delta_ns),
      beside ? fmt::format(", and so does {}'s", beside->source) : std::string());
  std::optional<StepBudget> own = ProfilerStepBudget(
      profile, step,
      "CANN's Overlap Analysis of the step: Computing, Communication(Not Overlapped) and Free; "
      "the device timeline is set aside: " +
          why);
  if (!own) return {budget, ""};
  own->replaced = budget->source;
  return {own, why};
}

// Kernels only, not copies or memsets: what the summary and the density
// count.
bool IsKernel(const model::DeviceEvents& events, uint32_t row) {
  return events.kind[row] != model::ActivityKind::kMemcpy &&
         events.kind[row] != model::ActivityKind::kMemset;
}

// p50, p90 and p99 of the durations of the |kernels| kernels among |rows|,
// selected by reading them a few times rather than in a copy (8 bytes a
// kernel held beside the step's other analyses); as Quantiles gives them.
std::vector<double> KernelQuantiles(const model::DeviceEvents& events, model::RowSet rows,
                                    size_t kernels) {
  const auto visit_durations = [&](auto&& visit) {
    for (const uint32_t i : rows) {
      if (IsKernel(events, i)) visit(static_cast<double>(events.duration_ns[i]));
    }
  };
  return QuantilesOfVisited(visit_durations, kernels, {0.50, 0.90, 0.99});
}

}  // namespace

StepDistribution ComputeStepDistribution(const model::RankProfile& profile, int32_t step,
                                         const KernelFamilies& families,
                                         const DistributionOptions& options) {
  const FamilyRules& rules = families.rules();
  StepDistribution result;
  result.step = step;
  const model::DeviceEvents& kernels = profile.device_events;
  result.kernels.known = profile.device_events_source != model::DeviceEventsSource::kNone;
  result.kernels.copies_known = profile.device_events_source == model::DeviceEventsSource::kTrace;

  // Kernels (IsKernel): counted and their density built as they are read.
  size_t kernel_count = 0;
  int64_t max_ns = 0;
  DurationDensityBuilder density;
  int64_t first_start = 0, last_start = 0, last_end = 0;
  int64_t total_ns = 0, le50 = 0, le100 = 0;
  int64_t events = 0, events_ns = 0;  // every device event: the families' denominators
  const size_t family_count = rules.families().size();
  std::vector<int64_t> family_count_by_index(family_count, 0);
  std::vector<int64_t> family_ns(family_count, 0);

  struct OpAccumulator {
    int64_t count = 0;
    int64_t total_ns = 0;
    int64_t max_ns = 0;
    size_t family = 0;
    bool derived = false;  // some kernel's type was derived from its name
  };
  // By op type, indexed by the type's string id (a few thousand ids at
  // most; a hash lookup per kernel was a tenth of this pass), with the
  // types met in the order they were met.
  std::vector<OpAccumulator> by_type(profile.strings.size());
  std::vector<StringId> types_met;
  // A GPU kernel's "type" is its own name; an Ascend export's untyped kernel
  // (kernel_details.csv / COMPUTE_TASK_INFO "N/A") gets one guessed from it.
  const bool types_guessed =
      profile.device_events_source == model::DeviceEventsSource::kKernelDetailsCsv;

  const model::RowSet rows = kernels.RowsOf(step);
  for (const uint32_t i : rows) {
    const int64_t start = kernels.start_ns[i];
    const int64_t duration = kernels.duration_ns[i];
    ++events;
    AddSaturating(events_ns, duration);
    const size_t family = families.Of(i);
    ++family_count_by_index[family];
    AddSaturating(family_ns[family], duration);

    OpAccumulator& op = by_type[kernels.op_type[i]];
    if (op.count++ == 0) types_met.push_back(kernels.op_type[i]);
    AddSaturating(op.total_ns, duration);
    op.max_ns = std::max(op.max_ns, duration);
    op.family = family;
    op.derived = op.derived || (types_guessed && kernels.op_type_derived[i] != 0);

    const model::ActivityKind kind = kernels.kind[i];
    if (kind == model::ActivityKind::kMemcpy) {
      ++result.kernels.memcpy_count;
      AddSaturating(result.kernels.memcpy_time_ns, duration);
      continue;
    }
    if (kind == model::ActivityKind::kMemset) {
      ++result.kernels.memset_count;
      AddSaturating(result.kernels.memset_time_ns, duration);
      continue;
    }
    const bool first = kernel_count++ == 0;
    first_start = first ? start : std::min(first_start, start);
    last_start = first ? start : std::max(last_start, start);
    last_end = first ? start + duration : std::max(last_end, start + duration);
    max_ns = first ? duration : std::max(max_ns, duration);
    density.Add(duration);
    AddSaturating(total_ns, duration);
    if (duration <= 50'000) ++le50;
    if (duration <= 100'000) ++le100;
    if (kind == model::ActivityKind::kCommunication) {
      ++result.kernels.communication_count;
    } else {
      ++result.kernels.compute_count;
    }
  }

  KernelSummary& summary = result.kernels;
  summary.count = static_cast<int64_t>(kernel_count);
  result.density = std::move(density).Finish();
  if (kernel_count > 0) {
    summary.span_ns = last_end - first_start;
    summary.mean_issue_interval_ns =
        kernel_count > 1
            ? static_cast<double>(last_start - first_start) / static_cast<double>(kernel_count - 1)
            : 0.0;
    summary.total_time_ns = total_ns;
    summary.share_le_50us = static_cast<double>(le50) / static_cast<double>(kernel_count);
    summary.share_le_100us = static_cast<double>(le100) / static_cast<double>(kernel_count);
    summary.max_ns = max_ns;
    const std::vector<double> quantiles = KernelQuantiles(kernels, rows, kernel_count);
    summary.p50_ns = quantiles[0];
    summary.p90_ns = quantiles[1];
    summary.p99_ns = quantiles[2];
  }

  for (size_t f = 0; f < family_count; ++f) {
    FamilyStat stat;
    stat.name = rules.families()[f];
    stat.count = family_count_by_index[f];
    stat.total_ns = family_ns[f];
    stat.share_count = events ? static_cast<double>(stat.count) / static_cast<double>(events) : 0;
    stat.share_time =
        events_ns ? static_cast<double>(family_ns[f]) / static_cast<double>(events_ns) : 0;
    result.families.push_back(std::move(stat));
  }

  for (const StringId type_id : types_met) {
    const OpAccumulator& op = by_type[type_id];
    OperatorStat stat;
    std::string_view type = profile.strings.Get(type_id);
    stat.op_type = type.empty() ? "(unknown)" : std::string(type);
    stat.family = rules.families()[op.family];
    stat.count = op.count;
    stat.total_ns = op.total_ns;
    stat.max_ns = op.max_ns;
    stat.type_derived = op.derived;
    stat.share_time =
        events_ns ? static_cast<double>(op.total_ns) / static_cast<double>(events_ns) : 0;
    result.top_operators.push_back(std::move(stat));
  }
  std::sort(result.top_operators.begin(), result.top_operators.end(),
            [](const OperatorStat& a, const OperatorStat& b) {
              if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
              return a.op_type < b.op_type;
            });
  if (result.top_operators.size() > options.top_operators) {
    result.top_operators.resize(options.top_operators);
  }
  result.step_trace = FindStepTrace(profile, step);
  ChosenBudget chosen = BudgetThatAgrees(profile, step, result.step_trace);
  result.breakdown = std::move(chosen.budget);
  result.timeline_set_aside = std::move(chosen.set_aside);
  return result;
}

void SetTimelineAside(const model::RankProfile& profile, const std::string& why,
                      StepDistribution* step) {
  // A step already set aside (its sources disagree) takes the later, more
  // fundamental reason (the timeline is impossible), on the same budget.
  const bool already = !step->timeline_set_aside.empty();
  step->timeline_set_aside = why;
  const std::string scope =
      "CANN's Overlap Analysis of the step: Computing, Communication(Not Overlapped) and Free; "
      "the device timeline is set aside: " +
      why;
  // A budget that is already the profiler's stays (a step without device
  // events has no timeline to replace).
  if (step->breakdown && (already || step->breakdown->source == kProfilerBudgetSource)) {
    step->breakdown->scope = scope;
    return;
  }
  std::string replaced = step->breakdown ? step->breakdown->source : std::string();
  step->breakdown = ProfilerStepBudget(profile, step->step, scope);
  if (step->breakdown) step->breakdown->replaced = std::move(replaced);
}

}  // namespace trainscope::analysis
