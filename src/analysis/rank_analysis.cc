#include "analysis/rank_analysis.h"

#include <algorithm>

#include "analysis/job_stages.h"
#include "analysis/step_selection.h"
#include "core/parallel.h"

namespace trainscope::analysis {

const StepDistribution* RankAnalysis::selected() const {
  for (const auto& step : steps) {
    if (step.step == selected_step) return &step;
  }
  return nullptr;
}

namespace {

FileHealth ToHealth(const RowLedger& ledger) {
  FileHealth health;
  health.file = ledger.file();
  health.rows_read = ledger.rows_read();
  health.rows_used = ledger.rows_used();
  health.rows_skipped = ledger.rows_skipped();
  health.skipped_by_reason.assign(ledger.skipped_by_reason().begin(),
                                  ledger.skipped_by_reason().end());
  health.notes_by_reason.assign(ledger.notes_by_reason().begin(), ledger.notes_by_reason().end());
  health.samples = ledger.samples();
  return health;
}

// The article zooms 40 ms -> 4 ms -> 1 ms until a periodic chain stands out;
// once motifs are mined, the zooms go straight to the most repeated
// fingerprinted chain that recurs across the step (instances spread over a
// quarter of it or more, like a per-layer chain; a tight loop such as the
// optimizer's is dense but not the layer structure), else the costliest.
void CentreZoomsOnTopMotif(RankAnalysis* rank) {
  const StepDistribution* step = rank->selected();
  if (step == nullptr || step->motifs.empty()) return;
  const Motif* best = nullptr;
  const double span_us = step->kernels.span_us;
  auto recurs_across_step = [&](const Motif& motif) {
    return motif.period_us * static_cast<double>(motif.occurrences) >= 0.25 * span_us;
  };
  for (const Motif& motif : step->motifs) {
    if (motif.instance_starts_us.size() < 2) continue;
    if (motif.fingerprint.has_value() && !recurs_across_step(motif)) continue;
    bool better = false;
    if (best == nullptr) {
      better = true;
    } else if (motif.fingerprint.has_value() != best->fingerprint.has_value()) {
      better = motif.fingerprint.has_value();
    } else if (motif.fingerprint.has_value() && motif.occurrences != best->occurrences) {
      better = motif.occurrences > best->occurrences;
    } else {
      better = motif.total_us > best->total_us;
    }
    if (better) best = &motif;
  }
  if (best == nullptr) return;
  std::string chain;
  for (size_t i = 0; i < best->kernels.size() && i < 12; ++i) {
    chain += (i ? " → " : "") + best->kernels[i];
  }
  if (best->kernels.size() > 12) chain += " → …";
  std::string label =
      std::string(best->fingerprint ? "instances of the most repeated fingerprinted motif ("
                                    : "instances of the costliest motif (") +
      chain + ")";
  if (best->fingerprint) label += ", fingerprint " + *best->fingerprint;
  BuildZooms(&rank->timeline, best->instance_starts_us, label);
}

}  // namespace

Result<RankAnalysis> AnalyzeRank(const model::RankProfile& profile, const FamilyRules& rules,
                                 const AnalysisOptions& options, unsigned threads) {
  RankAnalysis analysis;
  analysis.rank = profile.rank;
  analysis.source = profile.source_dir;
  analysis.torch_npu_version = profile.info.torch_npu_version;
  analysis.cann_version = profile.info.cann_version;
  analysis.profiler_level = profile.info.profiler_level;
  for (const auto& ledger : profile.ledgers) analysis.files.push_back(ToHealth(ledger));
  analysis.missing_files = profile.missing_files;
  analysis.steps_from = profile.steps_from;
  analysis.warnings = profile.warnings;

  TS_ASSIGN_OR_RETURN(StepChoice choice, SelectStep(profile, options.step));
  analysis.selected_step = choice.step;
  analysis.selected_step_reason = choice.reason;

  std::vector<int32_t> steps = StepsPresent(profile);
  if (steps.empty()) steps.push_back(model::kNoStep);
  const KernelFamilies families(profile, rules);
  analysis.steps.resize(steps.size());
  ParallelFor(steps.size(), threads, [&](size_t i) {
    analysis.steps[i] = ComputeStepDistribution(profile, steps[i], families, options.distribution);
  });
  analysis.timeline = ComputeStepTimeline(profile, analysis.selected_step, families);
  return analysis;
}

Result<JobAnalysis> AnalyzeJob(const std::vector<model::RankProfile>& profiles,
                               const FamilyRules& rules, const AnalysisOptions& options,
                               unsigned threads) {
  JobAnalysis job;
  job.family_names = rules.families();
  AnalysisOptions rank_options = options;
  std::optional<StepChoice> job_step;
  if (!options.step) job_step = SelectJobStep(profiles);
  std::vector<std::optional<Result<RankAnalysis>>> results(profiles.size());
  // Fewer ranks than cores (one big trace): the steps of each rank share the rest.
  const unsigned step_threads =
      std::max(1u, threads / static_cast<unsigned>(std::max<size_t>(1, profiles.size())));
  ParallelFor(profiles.size(), threads, [&](size_t i) {
    AnalysisOptions own = rank_options;
    // A rank without that step (e.g. no kernel_details) keeps its own choice.
    if (job_step) {
      auto present = StepsPresent(profiles[i]);
      if (std::find(present.begin(), present.end(), job_step->step) != present.end()) {
        own.step = job_step->step;
      }
    }
    auto analysis = AnalyzeRank(profiles[i], rules, own, step_threads);
    if (analysis.ok() && own.step && !options.step)
      analysis->selected_step_reason = job_step->reason;
    results[i].emplace(std::move(analysis));
  });
  for (auto& result : results) {
    if (!result->ok()) return result->status();
    job.ranks.push_back(std::move(*result).value());
  }
  AddFingerprintAnalysis(profiles, rules, options.fingerprints, threads, &job, options.catalog);
  for (RankAnalysis& rank : job.ranks) CentreZoomsOnTopMotif(&rank);
  AddClusterAnalysis(profiles, threads, &job, options.catalog);
  RankFindings(&job.findings);
  return job;
}

}  // namespace trainscope::analysis
