// Motifs of one step of one rank, fingerprint matching, expected gains and
// the fingerprint findings (methodology §2 steps 4-5).
#include <algorithm>
#include <map>

#include "analysis/findings/fingerprint_findings.h"
#include "analysis/job/job_stages.h"
#include "analysis/motifs/motif_step.h"

namespace trainscope::analysis {
namespace {

double StepSpanUs(const StepDistribution& step) {
  if (step.breakdown && step.breakdown->budget.total_ns > 0)
    return step.breakdown->budget.total_ns / 1e3;
  return step.kernels.span_us;
}

}  // namespace

std::map<int32_t, int64_t> StepStarts(const model::KernelTable& table) {
  std::map<int32_t, int64_t> starts;
  for (size_t i = 0; i < table.size(); ++i) {
    auto [it, inserted] = starts.emplace(table.step[i], table.start_ns[i]);
    if (!inserted) it->second = std::min(it->second, table.start_ns[i]);
  }
  if (table.size() > 0)
    starts[model::kNoStep] = *std::min_element(table.start_ns.begin(), table.start_ns.end());
  return starts;
}

std::vector<Finding> AddStepMotifs(const model::RankProfile& profile,
                                   const RankMotifContext& context, StepDistribution* step) {
  auto start = context.step_starts_ns.find(step->step);
  if (start == context.step_starts_ns.end()) return {};
  StepMotifs mined = AnalyzeStepMotifs(profile, step->step, start->second, StepSpanUs(*step),
                                       context.library, context.host);
  std::vector<Finding> findings = FingerprintFindings(
      profile.rank, step->step, mined, context.library,
      static_cast<int64_t>(context.catalog.thresholds().fingerprint_min_instances),
      context.catalog);
  step->motifs = std::move(mined.motifs);
  return findings;
}

}  // namespace trainscope::analysis
