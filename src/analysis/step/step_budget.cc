#include "analysis/step/step_budget.h"

#include <numeric>
#include <vector>

#include "analysis/common/breakdown_intervals.h"

namespace trainscope::analysis {
namespace {

std::optional<StepBudget> FromTrace(const model::RankProfile& profile, int32_t step) {
  const model::Timeline& timeline = profile.timeline;
  const auto& activities = timeline.activities;
  std::vector<uint32_t> members;
  if (step == model::kNoStep) {
    members.resize(activities.size());
    std::iota(members.begin(), members.end(), 0u);
  } else if (auto rows = timeline.activity_rows_by_step.find(step);
             rows != timeline.activity_rows_by_step.end()) {
    members = rows->second;
  }
  TimeBudget budget = BudgetOf(timeline, activities.kind, members);
  if (budget.activities == 0) return std::nullopt;
  return StepBudget{
      "trace",
      step == model::kNoStep
          ? "whole trace; all device activities"
          : "ProfilerStep window (activity in step = launched by a host op in the step "
            "window, else starts in it); all device activities",
      budget};
}

std::optional<StepBudget> FromKernels(const model::RankProfile& profile, int32_t step) {
  const auto& kernels = profile.kernels;
  std::vector<Interval> compute, comm, memory;
  TimeBudget b;
  for (const uint32_t i : kernels.RowsOf(step)) {
    Interval interval{kernels.start_ns[i], kernels.end_ns(i)};
    if (b.activities == 0 || interval.start < b.window_start_ns) b.window_start_ns = interval.start;
    if (b.activities == 0 || interval.end > b.window_end_ns) b.window_end_ns = interval.end;
    ++b.activities;
    switch (kernels.kind[i]) {
      case model::KernelKind::kCommunication:
        comm.push_back(interval);
        break;
      case model::KernelKind::kMemory:
        memory.push_back(interval);
        break;
      case model::KernelKind::kCompute:
        compute.push_back(interval);
        break;
    }
  }
  if (b.activities == 0) return std::nullopt;
  FillBudget(std::move(compute), std::move(comm), std::move(memory), {}, &b);
  return StepBudget{
      "kernel_details.csv",
      "kernels whose Step Id is the step; window = first kernel start to last kernel end", b};
}

}  // namespace

std::optional<StepBudget> ComputeStepBudget(const model::RankProfile& profile, int32_t step) {
  if (profile.timeline.present && profile.timeline.activities.size() > 0) {
    if (auto budget = FromTrace(profile, step)) return budget;
  }
  return FromKernels(profile, step);
}

}  // namespace trainscope::analysis
