// Choosing the step to analyse in depth (methodology §2 step 1).
//
// Warm-up steps are slower and odd (compilation, allocator growth), so by
// default the first captured step is skipped and, among the rest, the step
// with the median span is chosen: a typical steady step rather than an
// outlier. The reason is always reported so the user can disagree with
// --step N.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

struct StepChoice {
  int32_t step = model::kNoStep;  // kNoStep: the profile has no step ids; whole profile used
  std::string reason;
};

// Step numbers present in the profile: kernel Step Id values and
// step_trace_time rows, ascending. Empty when no step information exists.
std::vector<int32_t> StepsPresent(const model::RankProfile& profile);

// Span of each step that has kernels: a GPU trace's iteration
// (model/iteration.h), else first kernel start to last kernel end.
std::map<int32_t, int64_t> StepSpans(const model::RankProfile& profile);

// What step selection needs of one rank: plain data, gathered from every
// rank before the job's step is chosen.
struct RankSteps {
  int32_t rank = -1;
  std::vector<int32_t> present;         // StepsPresent
  std::map<int32_t, int64_t> spans_ns;  // StepSpans
  bool iterations = false;              // spans are GPU iterations (model/iteration.h)
};

RankSteps RankStepsOf(const model::RankProfile& profile);

// |requested| (from --step) must be present, else kNotFound naming the steps
// that are.
Result<StepChoice> SelectStep(const RankSteps& rank, std::optional<int32_t> requested);
Result<StepChoice> SelectStep(const model::RankProfile& profile, std::optional<int32_t> requested);

// The same rule for a whole job, so every rank is analysed on the same step:
// over the steps that every rank with kernels has, using the mean span across
// ranks. nullopt for a single rank or when the ranks share no step.
std::optional<StepChoice> SelectJobStep(const std::vector<RankSteps>& ranks);
std::optional<StepChoice> SelectJobStep(const std::vector<model::RankProfile>& profiles);

}  // namespace trainscope::analysis
