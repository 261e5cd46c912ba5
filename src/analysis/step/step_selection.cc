#include "analysis/step/step_selection.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include "model/iteration.h"

namespace trainscope::analysis {

std::vector<int32_t> StepsPresent(const model::RankProfile& profile) {
  const std::vector<int32_t> with_events = profile.device_events.Steps();
  std::set<int32_t> steps(with_events.begin(), with_events.end());
  for (const auto& row : profile.step_trace) {
    if (row.step != model::kNoStep) steps.insert(row.step);
  }
  return {steps.begin(), steps.end()};
}

std::map<int32_t, int64_t> StepSpans(const model::RankProfile& profile) {
  std::map<int32_t, int64_t> spans;
  for (int32_t step : profile.device_events.Steps()) {
    const std::optional<model::Iteration> iteration = model::IterationOf(profile, step);
    spans[step] =
        iteration ? iteration->span_ns() : profile.device_events.ExtentOf(step)->span_ns();
  }
  return spans;
}

RankSteps RankStepsOf(const model::RankProfile& profile) {
  return RankSteps{profile.rank, StepsPresent(profile), StepSpans(profile),
                   model::HasIterations(profile)};
}

namespace {

// The rule shared by one rank and a whole job: skip the first captured step
// (warm-up), then take the step whose span is the median of the rest.
// |spans| holds only steps that have kernels; |label| prefixes messages.
StepChoice ChooseSteady(const std::vector<int32_t>& steps, std::map<int32_t, int64_t> spans,
                        const std::string& span_kind) {
  if (steps.size() == 1) {
    return StepChoice{steps[0], fmt::format("step {}: the only step captured", steps[0])};
  }
  std::vector<int32_t> candidates(steps.begin() + 1, steps.end());
  std::string skipped =
      fmt::format("skipped step {} (first captured step, treated as warm-up)", steps.front());
  // Steps known only from step_trace_time have no kernels to analyse.
  std::erase_if(candidates, [&](int32_t step) { return !spans.count(step); });
  if (candidates.empty() && !spans.empty()) {
    return StepChoice{steps.front(),
                      fmt::format("step {}: the only step with kernels", steps.front())};
  }
  if (candidates.empty()) {
    // No step has kernels (only step_trace_time.csv): the steps are known
    // but not their spans, so the warm-up is still skipped and the middle
    // of the rest taken.
    std::vector<int32_t> rest(steps.begin() + 1, steps.end());
    const int32_t chosen = rest[(rest.size() - 1) / 2];
    return StepChoice{chosen, fmt::format("step {}: steps {}-{} captured, none with kernels; {}; "
                                          "the middle step of the rest",
                                          chosen, steps.front(), steps.back(), skipped)};
  }
  if (candidates.size() == 1) {
    return StepChoice{candidates[0], fmt::format("step {}: steps {}-{} captured; {}", candidates[0],
                                                 steps.front(), steps.back(), skipped)};
  }
  std::vector<int64_t> sorted_spans;
  sorted_spans.reserve(candidates.size());
  for (int32_t step : candidates) sorted_spans.push_back(spans[step]);
  std::sort(sorted_spans.begin(), sorted_spans.end());
  const int64_t median = sorted_spans[(sorted_spans.size() - 1) / 2];
  int32_t chosen = candidates[0];
  for (int32_t step : candidates) {
    if (std::llabs(spans[step] - median) < std::llabs(spans[chosen] - median)) chosen = step;
  }
  return StepChoice{chosen,
                    fmt::format("step {}: steps {}-{} captured; {}; step {} has the median {} "
                                "({:.1f} ms) of the remaining {} steps",
                                chosen, steps.front(), steps.back(), skipped, chosen, span_kind,
                                static_cast<double>(spans[chosen]) / 1e6, candidates.size())};
}

std::string JoinSteps(const std::vector<int32_t>& steps) {
  return steps.empty() ? "none" : fmt::format("{}", fmt::join(steps, ", "));
}

}  // namespace

Result<StepChoice> SelectStep(const model::RankProfile& profile, std::optional<int32_t> requested) {
  return SelectStep(RankStepsOf(profile), requested);
}

Result<StepChoice> SelectStep(const RankSteps& rank, std::optional<int32_t> requested) {
  const std::vector<int32_t>& steps = rank.present;
  if (requested) {
    if (std::find(steps.begin(), steps.end(), *requested) == steps.end()) {
      return NotFound(
          fmt::format("rank {}: step {} is not in the profile (steps present: {})\nhint: pick one "
                      "of those with "
                      "--step, or omit --step to let trainscope choose a steady step",
                      rank.rank, *requested, JoinSteps(steps)));
    }
    return StepChoice{*requested, fmt::format("step {} requested with --step", *requested)};
  }
  if (steps.empty()) {
    return StepChoice{model::kNoStep,
                      "no step ids in the profile (no ProfilerStep schedule): the whole capture "
                      "is analysed as one step"};
  }
  return ChooseSteady(steps, rank.spans_ns, rank.iterations ? "iteration span" : "span");
}

std::optional<StepChoice> SelectJobStep(const std::vector<model::RankProfile>& profiles) {
  std::vector<RankSteps> ranks;
  ranks.reserve(profiles.size());
  for (const auto& profile : profiles) ranks.push_back(RankStepsOf(profile));
  return SelectJobStep(ranks);
}

std::optional<StepChoice> SelectJobStep(const std::vector<RankSteps>& ranks) {
  if (ranks.size() < 2) return std::nullopt;
  // Steps every rank with kernels has; mean span over those ranks.
  std::map<int32_t, std::pair<int64_t, int>> sum_and_ranks;
  std::vector<int32_t> common;
  bool first = true;
  int ranks_with_kernels = 0;
  for (const RankSteps& rank : ranks) {
    const auto& spans = rank.spans_ns;
    if (spans.empty()) continue;
    ++ranks_with_kernels;
    std::vector<int32_t> steps;
    for (const auto& [step, span] : spans) {
      steps.push_back(step);
      sum_and_ranks[step].first += span;
      sum_and_ranks[step].second += 1;
    }
    if (first) {
      common = steps;
      first = false;
    } else {
      std::vector<int32_t> kept;
      std::set_intersection(common.begin(), common.end(), steps.begin(), steps.end(),
                            std::back_inserter(kept));
      common = kept;
    }
  }
  if (ranks_with_kernels < 2 || common.empty()) return std::nullopt;
  std::map<int32_t, int64_t> mean_spans;
  for (int32_t step : common)
    mean_spans[step] = sum_and_ranks[step].first / sum_and_ranks[step].second;
  const bool iterations = std::all_of(ranks.begin(), ranks.end(), [](const RankSteps& r) {
    return r.iterations || r.spans_ns.empty();
  });
  StepChoice choice =
      ChooseSteady(common, mean_spans,
                   iterations ? "mean iteration span across ranks" : "mean span across ranks");
  choice.reason += " (one step for all ranks, so that ranks are compared on the same step)";
  return choice;
}

}  // namespace trainscope::analysis
