// AddFingerprintAnalysis: motifs of every step of every rank, fingerprint
// matching, expected gains and the threshold rules, merged into the job's
// findings (methodology §2 steps 4-5, §3).
#include <algorithm>
#include <map>

#include "analysis/fingerprint_attribution.h"
#include "analysis/fingerprint_findings.h"
#include "analysis/fingerprint_library.h"
#include "analysis/job_stages.h"
#include "analysis/motif_step.h"
#include "analysis/threshold_findings.h"
#include "core/parallel.h"

namespace trainscope::analysis {
namespace {

// First kernel start of each step: motif positions are relative to it, as
// in the timeline panorama.
std::map<int32_t, int64_t> StepStarts(const model::KernelTable& table) {
  std::map<int32_t, int64_t> starts;
  for (size_t i = 0; i < table.size(); ++i) {
    auto [it, inserted] = starts.emplace(table.step[i], table.start_ns[i]);
    if (!inserted) it->second = std::min(it->second, table.start_ns[i]);
  }
  if (table.size() > 0) starts[model::kNoStep] = *std::min_element(table.start_ns.begin(), table.start_ns.end());
  return starts;
}

double StepSpanUs(const StepDistribution& step) {
  if (step.breakdown && step.breakdown->budget.total_ns > 0) return step.breakdown->budget.total_ns / 1e3;
  return step.kernels.span_us;
}

}  // namespace

void AddFingerprintAnalysis(const std::vector<model::RankProfile>& profiles, const FamilyRules&,
                            const FingerprintLibrary* user_library, unsigned threads, JobAnalysis* job) {
  const FingerprintLibrary& library = user_library ? *user_library : FingerprintLibrary::Builtin();
  const size_t n = std::min(profiles.size(), job->ranks.size());
  std::vector<std::vector<Finding>> per_rank(n);
  ParallelFor(n, threads, [&](size_t i) {
    const model::RankProfile& profile = profiles[i];
    RankAnalysis& rank = job->ranks[i];
    const HostAttributor host(profile);
    const auto starts = StepStarts(profile.kernels);
    for (auto& step : rank.steps) {
      auto start = starts.find(step.step);
      if (start == starts.end()) continue;
      StepMotifs motifs = AnalyzeStepMotifs(profile, step.step, start->second, StepSpanUs(step), library, host);
      if (step.step == rank.selected_step) {
        per_rank[i] = FingerprintFindings(rank.rank, step.step, motifs, library);
      }
      step.motifs = std::move(motifs.motifs);
    }
    auto thresholds = ThresholdFindings(rank, profile);
    per_rank[i].insert(per_rank[i].end(), std::make_move_iterator(thresholds.begin()),
                       std::make_move_iterator(thresholds.end()));
  });
  auto merged = MergeRankFindings(std::move(per_rank));
  job->findings.insert(job->findings.end(), std::make_move_iterator(merged.begin()),
                       std::make_move_iterator(merged.end()));
}

}  // namespace trainscope::analysis
