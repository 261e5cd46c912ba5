// Motifs of one step of one rank, fingerprint matching, expected gains and
// the fingerprint findings (methodology §2 steps 4-5).
#include <algorithm>
#include <optional>

#include "analysis/findings/fingerprint_findings.h"
#include "analysis/job/job_stages.h"
#include "analysis/motifs/motif_step.h"

namespace trainscope::analysis {
namespace {

int64_t StepSpanNs(const StepDistribution& step) {
  if (step.breakdown && step.breakdown->budget.total_ns > 0) return step.breakdown->budget.total_ns;
  return step.kernels.span_ns;
}

}  // namespace

std::optional<StepMotifs> MineStepMotifs(const model::RankProfile& profile,
                                         const RankMotifContext& context, int32_t step) {
  // Motif positions are relative to the step's first event, as in the
  // timeline panorama.
  const std::optional<model::StepExtent> extent = profile.device_events.ExtentOf(step);
  if (!extent) return std::nullopt;
  MotifStepOptions options;
  options.accept_memo = context.accept_memo;
  options.mining_memo = context.mining_memo;
  return AnalyzeStepMotifs(profile, step, extent->first_start_ns, /*step_ns=*/0, context.library,
                           context.host, options);
}

std::vector<Finding> AddStepMotifs(const model::RankProfile& profile,
                                   const RankMotifContext& context, std::optional<StepMotifs> mined,
                                   StepDistribution* step) {
  if (!mined) return {};
  SetStepSpan(StepSpanNs(*step), &*mined);
  std::vector<Finding> findings = FingerprintFindings(
      profile.rank, step->step, *mined, context.library,
      static_cast<int64_t>(context.catalog.thresholds().fingerprint_min_instances));
  step->motifs = std::move(mined->motifs);
  return findings;
}

}  // namespace trainscope::analysis
