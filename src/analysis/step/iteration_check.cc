#include "analysis/step/iteration_check.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "model/iteration.h"

namespace trainscope::analysis {

std::string IterationWarning(const model::RankProfile& profile) {
  const std::optional<model::IterationCheck> check = model::CheckIterations(profile);
  // A median of fewer than three steady steps is one step's noise.
  if (!check || check->median_host_step_ns <= 0 || check->iterations < 3) return "";
  const auto iteration = static_cast<double>(check->median_iteration_ns);
  const auto host = static_cast<double>(check->median_host_step_ns);
  const double difference = (iteration - host) / host;
  if (std::fabs(difference) <= kIterationAgreement) return "";
  return fmt::format(
      "the median iteration ({:.3f} ms, this step's start to the next's on the device clock) "
      "differs from the median host step ({:.3f} ms, ProfilerStep's duration) by {:+.1f}% over "
      "{} steady steps: the step windows do not describe the iteration well (the host step ends "
      "before its device work is queued, or the device lags the host); time shares are of the "
      "iteration (docs/timelines.md, \"The iteration\")",
      iteration / 1e6, host / 1e6, difference * 100, check->iterations);
}

}  // namespace trainscope::analysis
